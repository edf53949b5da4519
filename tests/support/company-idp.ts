/**
 * A company's identity provider for the single sign-on tests: a second oidc-provider (a certified
 * OpenID Provider) with its own issuer on a free port, its own people (`directory`), and a login
 * page a browser fills in. A login the directory does not hold is refused with `access_denied`, as
 * a provider refuses a person removed from it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPair, type JsonWebKey as JWK } from 'node:crypto';
import { promisify } from 'node:util';
import Provider from 'oidc-provider';
import { freePort } from '@svc/testkit';

export interface Person {
  email: string;
  email_verified: boolean;
  groups?: string[];
}

export interface CompanyIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The provider's people by login name; remove one to remove them at the provider. */
  directory: Map<string, Person>;
  /** The private JWK the provider signs with (its JWKS publishes the public part): to sign tokens as the provider would. */
  signingKey: JWK;
  close(): Promise<void>;
}

const page = (uid: string) => `<!doctype html><html lang="en"><head><title>Company sign-in</title></head><body>
<h1>Company sign-in</h1><form method="post" action="/interaction/${uid}/login">
<label for="login">Login</label><input id="login" name="login" autofocus><button type="submit">Sign in to the company</button></form></body></html>`;

async function formOf(req: IncomingMessage): Promise<URLSearchParams> {
  let text = '';
  for await (const chunk of req as AsyncIterable<Buffer>) text += chunk.toString('utf8');
  return new URLSearchParams(text);
}

/**
 * `backchannelLogoutUri`: registered for svc's client, so the provider POSTs a logout token there
 * when a person's session ends at it (OpenID Connect Back-Channel Logout 1.0), its ID tokens then
 * carrying `sid`.
 */
export async function startCompanyIdp(redirectUri: string, options: { backchannelLogoutUri?: string } = {}): Promise<CompanyIdp> {
  const signingKey = {
    ...(await promisify(generateKeyPair)('rsa', { modulusLength: 2048 })).privateKey.export({ format: 'jwk' }),
    kid: 'company-1',
    alg: 'RS256',
    use: 'sig',
  } as JWK;
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const directory = new Map<string, Person>();
  const clientId = 'svc-at-company';
  const clientSecret = `company-secret-${Math.random().toString(36).slice(2)}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        ...(options.backchannelLogoutUri
          ? { backchannel_logout_uri: options.backchannelLogoutUri, backchannel_logout_session_required: true }
          : {}),
      },
    ],
    jwks: { keys: [signingKey] },
    // oidc-provider refuses outgoing requests to loopback addresses (its SSRF guard); svc listens on
    // one in the tests, so the logout token's POST goes out without that guard here.
    fetch: (url: string | URL | Request, init?: RequestInit) => {
      const { dispatcher: _guard, ...rest } = (init ?? {}) as RequestInit & { dispatcher?: unknown };
      return fetch(url, rest);
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: [], groups: ['groups'] },
    // The claims of the scopes go into the ID token (as Okta, Entra ID and Keycloak put email there).
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false }, backchannelLogout: { enabled: Boolean(options.backchannelLogoutUri) } },
    cookies: { keys: ['company-idp-test-cookie-key'] },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, sub) => {
      const person = directory.get(sub);
      return person ? { accountId: sub, claims: () => ({ sub, ...person }) } : undefined;
    },
  });
  const callback = provider.callback();

  async function interaction(req: IncomingMessage, res: ServerResponse, uid: string, login: boolean): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) throw new Error('interaction mismatch');
    if (!login) {
      res.writeHead(200, { 'content-type': 'text/html' }).end(page(uid));
      return;
    }
    const name = (await formOf(req)).get('login') ?? '';
    if (!directory.has(name)) {
      await provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'not a member of the company' },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const grant = new provider.Grant({ accountId: name, clientId });
    grant.addOIDCScope(String(details.params['scope'] ?? 'openid'));
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { login: { accountId: name }, consent: { grantId } }, { mergeWithLastSubmission: false });
  }

  const server: Server = createServer((req, res) => {
    const m = /^\/interaction\/([A-Za-z0-9_-]+)(\/login)?$/.exec(req.url ?? '');
    if (!m) return void callback(req, res);
    interaction(req, res, m[1]!, req.method === 'POST' && Boolean(m[2])).catch((err: unknown) => {
      res.writeHead(500).end(String(err));
    });
  });
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  if ((server.address() as AddressInfo).port !== port) throw new Error('port');
  return {
    issuer,
    clientId,
    clientSecret,
    directory,
    signingKey,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

/**
 * A second issuer that names itself in its discovery document but sends sign-ins to `real`'s
 * endpoints: whatever it hands back was issued by `real`, another issuer (a mix-up, RFC 9700 §4.4).
 */
export async function startMixUpIssuer(real: string): Promise<{ issuer: string; close(): Promise<void> }> {
  const metadata = (await (await fetch(`${real}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const server = createServer((req, res) => {
    if (req.url !== '/.well-known/openid-configuration') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...metadata, issuer }));
  });
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  return { issuer, close: () => new Promise<void>((ok) => server.close(() => ok())) };
}
