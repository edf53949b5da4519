/**
 * Enterprise-managed authorization (docs/auth-service.md "Enterprise-managed authorization"): an
 * identity provider the workspace trusts signs an ID-JAG (jose), a public client trades it with the
 * RFC 7523 jwt-bearer grant for an `svc_at_` token that calls a tool at the person's level; the
 * official SDK v2 CrossAppAccessProvider does the same with client authentication `none`; each
 * refusal is the right OAuth error.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { Client, CrossAppAccessProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { PublicJwk } from '@svc/accounts';
import {
  ID_JAG_CLOCK_TOLERANCE_SECONDS,
  ID_JAG_JTI_MAX_LENGTH,
  ID_JAG_MAX_LENGTH,
  ID_JAG_MAX_LIFETIME_SECONDS,
  ID_JAG_TOKEN_TTL_SECONDS,
  JWT_BEARER_GRANT,
} from '@svc/auth-service/oauth/id-jag.ts';
import { outsideLoopBudget } from '@svc/testkit';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { newPerson, startStack, type Stack } from '../support/stack.ts';
import { mcpCall } from './gateway-call.ts';
import { ssoOwner } from './sso-setup.ts';

const IDP = 'https://idp.example.com';
/** An issuer whose keys are at a JWKS URL, served by the stand-in for the guarded fetch below. */
const URL_IDP = 'https://url-idp.example.com';
const KEYS_HOST = 'keys.idp.example.com';
let urlIdpKey: CryptoKey;
let urlIdpJwks: { keys: unknown[] };
let jwksFetches = 0;
let stack: Stack;
let tokenUrl: string;
let clientId: string;
let owner: Awaited<ReturnType<typeof newPerson>>;
let editorEmail: string;
let idpKey: CryptoKey;
let strangerKey: CryptoKey;

before(async () => {
  const urlPair = await generateKeyPair('ES256');
  urlIdpKey = urlPair.privateKey;
  urlIdpJwks = { keys: [{ ...(await exportJWK(urlPair.publicKey)), kid: 'idp-1', alg: 'ES256' }] };
  stack = await outsideLoopBudget(() =>
    startStack(
      {},
      {
        // Our stand-in for DNS and TLS: the issuer's JWKS URL answers here, a broken one with a 500.
        authFetch: async (url, options) => {
          const target = new URL(String(url));
          if (target.host !== KEYS_HOST) return globalThis.fetch(url, options);
          jwksFetches++;
          return target.pathname === '/jwks' ? Response.json(urlIdpJwks) : new Response('down', { status: 500 });
        },
      },
    ),
  );
  tokenUrl = `${stack.authUrl}/api/oauth/token`;
  owner = await newPerson(stack, 'idjag');
  // The workspace proved example.com, so an assertion's email claim at it names the person (its
  // subjects are linked to no one here: id-jag-subjects.test.ts is about the links).
  await ssoOwner(stack, owner.user).claimDomain(owner.user.workspace, 'example.com');
  const editor = await stack.accounts.users.create({ emailVerified: true, email: `ed-${randomUUID().slice(0, 8)}@example.com` });
  editorEmail = editor.email;
  await stack.accounts.workspaces.setRole(owner.slug, editor.id, 'EDITOR');
  const pair = await generateKeyPair('ES256');
  idpKey = pair.privateKey;
  strangerKey = (await generateKeyPair('ES256')).privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'idp-1', alg: 'ES256' } as PublicJwk;
  await stack.accounts.trustedIssuers.add(owner.user.workspace, IDP, { jwks: { keys: [jwk] } });
  await stack.accounts.trustedIssuers.add(owner.user.workspace, URL_IDP, { jwksUri: `https://${KEYS_HOST}/jwks` });
  await stack.accounts.trustedIssuers.add(owner.user.workspace, 'https://broken-idp.example.com', {
    jwksUri: `https://${KEYS_HOST}/broken`,
  });
  const reg = await fetch(`${stack.authUrl}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Enterprise agent',
      redirect_uris: ['http://127.0.0.1:9/cb'],
      grant_types: ['authorization_code', 'refresh_token', JWT_BEARER_GRANT],
      token_endpoint_auth_method: 'none',
    }),
  });
  assert.equal(reg.status, 201, await reg.clone().text());
  clientId = ((await reg.json()) as { client_id: string }).client_id;
});
after(async () => {
  await stack.close();
});

const resourceOf = (slug: string) => `${stack.baseUrl}/mcp/${slug}`;

/** An ID-JAG signed by the trusted identity provider, the given claims over the defaults. */
async function idJag(claims: JWTPayload = {}, opts: { key?: CryptoKey; typ?: string } = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload: JWTPayload = {
    iss: IDP,
    sub: 'idp-user-1',
    aud: stack.authUrl,
    client_id: clientId,
    jti: randomUUID(),
    iat: now,
    exp: now + 120,
    resource: resourceOf(owner.slug),
    email: editorEmail,
    ...claims,
  };
  for (const [k, v] of Object.entries(payload)) if (v === undefined) delete payload[k];
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'ES256', typ: opts.typ ?? 'oauth-id-jag+jwt', kid: 'idp-1' })
    .sign(opts.key ?? idpKey);
}

async function exchange(assertion: string, extra: Record<string, string> = {}) {
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion, client_id: clientId, ...extra }),
  });
  return {
    status: res.status,
    body: (await res.json()) as {
      access_token?: string;
      expires_in?: number;
      scope?: string;
      refresh_token?: string;
      error?: string;
      error_description?: string;
    },
  };
}

async function helpText(token: string, slug = owner.slug): Promise<string> {
  const r = await mcpCall(stack.baseUrl, slug, token);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body.result as { content: { text: string }[] }).content[0]!.text;
}

test('an ID-JAG from a trusted issuer buys a project token that calls a tool at the person`s level', async () => {
  const r = await exchange(await idJag());
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.match(r.body.access_token ?? '', /^svc_at_/);
  assert.equal(r.body.scope, 'mcp:write');
  assert.equal(r.body.refresh_token, undefined);
  assert.equal(r.body.expires_in, ID_JAG_TOKEN_TTL_SECONDS);
  assert.match(await helpText(r.body.access_token!), /role EDITOR\b/);
  // Audited as the consent page's approvals are, naming the identity provider.
  const { entries } = await stack.accounts.audit.page(owner.user.workspace, { action: 'oauth_app.authorized' });
  assert.ok(entries.some((e) => e.actor === editorEmail && e.detail?.['identity_provider'] === IDP && e.detail['scope'] === 'mcp:write'));
  // Another project refuses it: its audience is one project.
  const other = await newPerson(stack, 'idjag-other');
  assert.equal((await mcpCall(stack.baseUrl, other.slug, r.body.access_token!)).status, 401);
});

test('the level: never above the role, EDITOR unless more is asked, lowered by the assertion`s scope', async () => {
  const ownerJag = (claims: JWTPayload = {}) => idJag({ email: owner.email, ...claims });
  const plain = await exchange(await ownerJag());
  assert.match(await helpText(plain.body.access_token!), /role EDITOR \(the level approved for this token; your own role is ADMIN\)/);
  const admin = await exchange(await ownerJag(), { scope: 'mcp:admin' });
  assert.equal(admin.body.scope, 'mcp:admin');
  assert.match(await helpText(admin.body.access_token!), /role ADMIN\b/);
  const narrowed = await exchange(await ownerJag({ scope: 'mcp:read' }), { scope: 'mcp:admin' });
  assert.equal(narrowed.body.scope, 'mcp:read');
  const above = await exchange(await idJag(), { scope: 'mcp:admin' });
  assert.deepEqual([above.status, above.body.error], [400, 'invalid_scope'], 'an EDITOR asking for ADMIN');
});

test('an issuer whose keys are at a JWKS URL: fetched through the guarded fetch; a failing URL is invalid_grant', async () => {
  const ok = await exchange(await idJag({ iss: URL_IDP }, { key: urlIdpKey }));
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.match(await helpText(ok.body.access_token!), /role EDITOR\b/);
  assert.equal((await exchange(await idJag({ iss: URL_IDP }, { key: urlIdpKey }))).status, 200);
  assert.equal(jwksFetches, 1, 'the JWKS URL is fetched once for both (ID_JAG_JWKS_CACHE_SECONDS)');
  const wrongKey = await exchange(await idJag({ iss: URL_IDP }));
  assert.deepEqual([wrongKey.status, wrongKey.body.error], [400, 'invalid_grant']);
  assert.match(wrongKey.body.error_description ?? '', /not signed by a key of its issuer/);
  const broken = await exchange(await idJag({ iss: 'https://broken-idp.example.com' }, { key: urlIdpKey }));
  assert.deepEqual([broken.status, broken.body.error], [400, 'invalid_grant']);
  assert.match(broken.body.error_description ?? '', /could not be fetched/);
});

test('each bad assertion is refused with the right OAuth error', async () => {
  const now = Math.floor(Date.now() / 1000);
  const replayed = await idJag();
  assert.equal((await exchange(replayed)).status, 200);
  // At the bounds: a jti of the longest length, an iat within the clock tolerance.
  assert.equal((await exchange(await idJag({ jti: 'j'.repeat(ID_JAG_JTI_MAX_LENGTH) }))).status, 200);
  assert.equal((await exchange(await idJag({ iat: now + ID_JAG_CLOCK_TOLERANCE_SECONDS - 5 }))).status, 200);
  const unconfirmed = await stack.accounts.users.create({ email: `unconf-${randomUUID().slice(0, 8)}@example.com` });
  const noRole = await stack.accounts.users.create({ emailVerified: true, email: `norole-${randomUUID().slice(0, 8)}@example.com` });
  const foreign = await newPerson(stack, 'idjag-foreign');
  const cases: [string, Promise<string> | string, string, RegExp, Record<string, string>?][] = [
    ['untrusted issuer', idJag({ iss: 'https://other-idp.example.com' }), 'invalid_grant', /issuer is not trusted/],
    ['trusted issuer, another key', idJag({}, { key: strangerKey }), 'invalid_grant', /not signed by a key of its issuer/],
    ['wrong aud', idJag({ aud: 'https://elsewhere.example' }), 'invalid_grant', /aud claim/],
    ['expired', idJag({ iat: now - 600, exp: now - 300 }), 'invalid_grant', /expired/],
    ['too long-lived', idJag({ exp: now + ID_JAG_MAX_LIFETIME_SECONDS + 60 }), 'invalid_grant', /at most 300 seconds/],
    ['no jti', idJag({ jti: undefined }), 'invalid_grant', /jti claim/],
    ['jti too long', idJag({ jti: 'j'.repeat(ID_JAG_JTI_MAX_LENGTH + 1) }), 'invalid_grant', /1 to 256 characters/],
    [
      'issued in the future',
      idJag({ iat: now + ID_JAG_CLOCK_TOLERANCE_SECONDS + 30, exp: now + 120 }),
      'invalid_grant',
      /iat claim|future/,
    ],
    ['replayed jti', replayed, 'invalid_grant', /already used/],
    ['wrong typ', idJag({}, { typ: 'JWT' }), 'invalid_grant', /typ/],
    ['another client', idJag({ client_id: 'someone-else' }), 'invalid_grant', /another client/],
    ['unknown person', idJag({ email: 'nobody@example.com' }), 'invalid_grant', /no svc account with a confirmed address/],
    ['unconfirmed address', idJag({ email: unconfirmed.email }), 'invalid_grant', /no svc account with a confirmed address/],
    ['no email claim', idJag({ email: undefined }), 'invalid_grant', /no email claim/],
    ['a person with no role', idJag({ email: noRole.email }), 'invalid_grant', /no role on project/],
    ['a project of another workspace', idJag({ resource: resourceOf(foreign.slug) }), 'invalid_grant', /issuer is not trusted/],
    ['no such project', idJag({ resource: resourceOf('no-such-project') }), 'invalid_target', /existing project/],
    ['resource differs', idJag(), 'invalid_grant', /not the one the assertion names/, { resource: resourceOf(foreign.slug) }],
    ['not a JWT', 'not.a.jwt', 'invalid_grant', /not a JWT/],
    ['too long', 'a'.repeat(ID_JAG_MAX_LENGTH + 1), 'invalid_grant', /longer than 8192/],
  ];
  for (const [label, assertion, error, description, extra] of cases) {
    const r = await exchange(await assertion, extra);
    assert.deepEqual([r.status, r.body.error], [400, error], `${label}: ${JSON.stringify(r.body)}`);
    assert.match(r.body.error_description ?? '', description, label);
  }
});

test('the official SDK v2 CrossAppAccessProvider, as a public client, calls a tool', async () => {
  const provider = new CrossAppAccessProvider({
    assertion: async (ctx) => idJag({ aud: ctx.authorizationServerUrl.replace(/\/$/, ''), resource: ctx.resourceUrl }),
    clientId,
    // The SDK's types ask for a secret, but svc's clients hold none: with `none` advertised and no
    // secret, the SDK authenticates as a public client (selectClientAuthMethod).
    clientSecret: undefined as unknown as string,
    expectedIssuer: stack.authUrl,
  });
  const client = new Client({ name: 'enterprise-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(resourceOf(owner.slug)), { authProvider: provider }));
  try {
    const r = await client.callTool({ name: 'svc_help', arguments: {} });
    assert.match((r.content as { text: string }[])[0]!.text, /role EDITOR\b/);
  } finally {
    await client.close();
  }
  assert.match(provider.tokens()?.access_token ?? '', /^svc_at_/);
});
