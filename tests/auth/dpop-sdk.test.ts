/**
 * DPoP end to end (RFC 9449; docs/auth-service.md "DPoP") with the official MCP TypeScript SDK v2
 * client and its own DPoP support switched on (`OAuthClientProvider.dpop()`): dynamic
 * registration, the code flow (a person approves in chromium) with a proof at the token
 * endpoint, a tool call with `Authorization: DPoP` and a proof per request, and a refresh after
 * the access token is gone. The tokens are bound to the client's key (the records' `jkt`), the
 * refresh token stays bound through rotation, and neither works without that key.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  Client,
  DpopSession,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { oidcRecordKey } from '@svc/accounts';
import { DPOP_SIGNING_ALGS } from '@svc/credentials';
import { startStack, newPerson, PASSWORD, type Stack } from '../support/stack.ts';
import { consent, launchBrowser, signInOnPage } from './browser.ts';

const REDIRECT = 'http://127.0.0.1:45997/callback';
let stack: Stack;
let browser: Browser;
let email: string;
let slug: string;

before(async () => {
  stack = await startStack();
  browser = await launchBrowser();
  ({ email, slug } = await newPerson(stack, 'dpop'));
});
after(async () => {
  await browser.close();
  await stack.close();
});

/** An OAuthClientProvider with a DPoP key, whose "redirect" is a person approving in chromium. */
class DpopBrowserApproval implements OAuthClientProvider {
  info: StoredOAuthClientInformation | undefined;
  saved: StoredOAuthTokens | undefined;
  verifier = '';
  callback = new URLSearchParams();
  session: DpopSession | undefined;
  readonly extraMetadata: Partial<OAuthClientMetadata>;
  /** No session: the client sends no DPoP proof. */
  constructor(session: DpopSession | undefined, extraMetadata: Partial<OAuthClientMetadata> = {}) {
    this.session = session;
    this.extraMetadata = extraMetadata;
  }
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'sdk dpop e2e',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...this.extraMetadata,
    };
  }
  dpop() {
    return this.session;
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(url: URL) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.route(`${REDIRECT}**`, async (route) => {
      this.callback = new URL(route.request().url()).searchParams;
      await route.fulfill({ status: 200, body: 'ok' });
    });
    await page.goto(url.href);
    await signInOnPage(page, email, PASSWORD);
    await consent(page, { kind: 'approve' }, 'dpop-sdk-approve');
    await page.waitForURL(`${REDIRECT}**`);
    await context.close();
  }
}

const connect = (provider: DpopBrowserApproval) => ({
  client: new Client({ name: 'svc-sdk-dpop', version: '1.0.0' }),
  transport: new StreamableHTTPClientTransport(new URL(`${stack.baseUrl}/mcp/${slug}`), { authProvider: provider }),
});

async function recordJkt(model: 'AccessToken' | 'RefreshToken', token: string): Promise<string | undefined> {
  const payload = await stack.client.hget(oidcRecordKey(model, token), 'payload');
  return payload ? (JSON.parse(payload) as { jkt?: string }).jkt : undefined;
}

async function refreshWith(refreshToken: string, clientId: string, proof: string | null) {
  const res = await fetch(`${stack.authUrl}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(proof ? { DPoP: proof } : {}) },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

test('the authorization server accepts the algorithms the gateway accepts, and says so', async () => {
  const as = (await (await fetch(`${stack.authUrl}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
  assert.deepEqual(as['dpop_signing_alg_values_supported'], [...DPOP_SIGNING_ALGS]);
  const prm = (await (await fetch(`${stack.baseUrl}/.well-known/oauth-protected-resource/mcp/${slug}`)).json()) as Record<string, unknown>;
  assert.deepEqual(prm['dpop_signing_alg_values_supported'], as['dpop_signing_alg_values_supported']);
});

test('SDK v2 with DPoP: code flow, tool call and refresh, every token bound to its key', async () => {
  const session = await DpopSession.create();
  const provider = new DpopBrowserApproval(session);
  const first = connect(provider);
  await assert.rejects(first.client.connect(first.transport), UnauthorizedError);
  await first.transport.finishAuth(provider.callback);
  const issued = provider.saved!;
  assert.equal(issued.token_type.toLowerCase(), 'dpop', 'RFC 9449 §5: a DPoP token type');
  assert.equal(await recordJkt('AccessToken', issued.access_token), session.thumbprint);
  assert.equal(
    await recordJkt('RefreshToken', issued.refresh_token!),
    session.thumbprint,
    'a public client: the refresh token is bound too',
  );

  const second = connect(provider);
  await second.client.connect(second.transport);
  const result = await second.client.callTool({ name: 'svc_help', arguments: {} });
  assert.match((result.content as { text: string }[])[0]!.text, /Tools you can call/);
  await second.client.close();

  // The access token alone is worth nothing: as a bearer token it is refused (RFC 9449 §7.2).
  const bearer = await fetch(`${stack.baseUrl}/mcp/${slug}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${issued.access_token}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_help', arguments: {} } }),
  });
  assert.equal(bearer.status, 401);
  assert.match(bearer.headers.get('www-authenticate') ?? '', /^DPoP .*error="invalid_token"/);

  // Neither is the refresh token: without a proof, or with a proof of another key.
  const clientId = provider.info!.client_id;
  const htu = `${stack.authUrl}/api/oauth/token`;
  const noProof = await refreshWith(issued.refresh_token!, clientId, null);
  assert.equal(noProof.status, 400);
  assert.equal(noProof.body['error'], 'invalid_grant');
  const thief = await DpopSession.create();
  const otherKey = await refreshWith(issued.refresh_token!, clientId, await thief.buildProof({ htm: 'POST', htu }));
  assert.equal(otherKey.status, 400);
  assert.equal(otherKey.body['error'], 'invalid_grant');

  // The access token is gone; the SDK refreshes with a proof and carries on, still bound.
  assert.equal(await stack.client.del(oidcRecordKey('AccessToken', issued.access_token)), 1);
  await stack.client.publish('svc:invalidate', 'test');
  const third = connect(provider);
  await third.client.connect(third.transport);
  const again = await third.client.callTool({ name: 'svc_help', arguments: {} });
  assert.ok(Array.isArray(again.content));
  await third.client.close();
  const refreshed = provider.saved!;
  assert.notEqual(refreshed.access_token, issued.access_token);
  assert.notEqual(refreshed.refresh_token, issued.refresh_token);
  assert.equal(await recordJkt('AccessToken', refreshed.access_token), session.thumbprint);
  assert.equal(await recordJkt('RefreshToken', refreshed.refresh_token!), session.thumbprint, 'rotation keeps the binding');
});

test('a client registered with dpop_bound_access_tokens=true gets no token without a proof, and works with one', async () => {
  // RFC 9449 §5.2 client metadata; the SDK's type does not name it.
  const provider = new DpopBrowserApproval(undefined, { dpop_bound_access_tokens: true } as Partial<OAuthClientMetadata>);
  const first = connect(provider);
  await assert.rejects(first.client.connect(first.transport), UnauthorizedError);
  // The SDK keeps only the metadata it knows; the client's record holds the rest.
  const client = await stack.client.hget(oidcRecordKey('Client', provider.info!.client_id), 'payload');
  assert.equal((JSON.parse(client ?? '{}') as Record<string, unknown>)['dpop_bound_access_tokens'], true, 'registered as DPoP-bound');
  // invalid_grant, "DPoP proof JWT not provided" (oidc-provider keeps the detail out of the answer).
  await assert.rejects(first.transport.finishAuth(provider.callback), /grant request is invalid/, 'RFC 9449 §5.2: a proof is required');
  assert.equal(provider.saved, undefined, 'no token was issued');
  // The code was not used up by the refusal: the same exchange with a proof gets bound tokens that work.
  provider.session = await DpopSession.create();
  await first.transport.finishAuth(provider.callback);
  assert.equal(await recordJkt('AccessToken', provider.saved!.access_token), provider.session.thumbprint);
  const second = connect(provider);
  await second.client.connect(second.transport);
  assert.ok(Array.isArray((await second.client.callTool({ name: 'svc_help', arguments: {} })).content));
  await second.client.close();
});
