/**
 * Remote MCP OAuth with openid-client (docs/contract.md "Remote MCP OAuth"; RFC 7591, 7636, 8707, 7009,
 * 7662): dynamic registration, authorization code with S256 PKCE bound to one project, the
 * person's approval in chromium, refresh rotation, reuse detection revoking the grant, revocation
 * and introspection, and the gateway's verdict on each token within a second.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as oc from 'openid-client';
import type { Browser, BrowserContext } from 'playwright-core';
import { oidcRecordKey } from '@svc/accounts';
import { parseCredential } from '@svc/credentials';
import { testClock, waitFor } from '@svc/testkit';
import { createOAuthTokenVerifier } from '@svc/mcp-gateway/auth/oauth-token-verifier.ts';
import { PASSWORD, startStack, type Stack } from '../support/stack.ts';
import { authorizeInBrowser } from './authorize.ts';
import { launchBrowser, shot } from './browser.ts';
import { mcpCall } from './gateway-call.ts';

const REDIRECT = 'http://127.0.0.1:45999/callback';
let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let email: string;
let slug: string;
let otherSlug: string;
let config: oc.Configuration;
/** The auth-service's clock: moved past the 30 s refresh replay window, never waited for. */
const clock = testClock({ frozen: false });

before(async () => {
  stack = await startStack({}, { authNow: clock.now });
  browser = await launchBrowser();
  context = await browser.newContext();
  email = `code-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const user = await stack.accounts.users.create({ emailVerified: true, email, password: PASSWORD });
  slug = `code-${Math.random().toString(36).slice(2, 8)}`;
  await stack.accounts.workspaces.createProject({ slug, workspace: user.workspace });
  const other = await stack.accounts.users.create({ emailVerified: true, email: `x-${email}`, password: PASSWORD });
  otherSlug = `other-${slug}`;
  await stack.accounts.workspaces.createProject({ slug: otherSlug, workspace: other.workspace });
  config = await oc.dynamicClientRegistration(
    new URL(stack.authUrl),
    { client_name: 'e2e MCP client', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
    oc.None(),
    { algorithm: 'oauth2', execute: [oc.allowInsecureRequests] },
  );
});
after(async () => {
  await context.close();
  await browser.close();
  await stack.close();
});

/** The browser side of one authorization: returns the callback URL with the code. */
const authorize = (resource: string, name: string) => authorizeInBrowser(context, config, { redirect: REDIRECT, resource, email, name });

async function tokensFor(resource: string, name: string) {
  const { callback, verifier, state } = await authorize(resource, name);
  return oc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }, { resource });
}

async function gatewayStatus(token: string, project = slug) {
  return (await mcpCall(stack.baseUrl, project, token)).status;
}

/** The gateway's answer to `token` once it is a 401, within `timeout` ms (docs/contract.md "Credentials": within a second). */
function refusedWithin(token: string, what: string, timeout = 1000) {
  return waitFor(
    async () => {
      const res = await mcpCall(stack.baseUrl, slug, token);
      return res.status === 401 && res;
    },
    { timeout, message: `the gateway to refuse ${what}` },
  );
}

test('auth code + PKCE: project-bound svc_at_/svc_rt_; gateway accepts it at that project only', async () => {
  const resource = `${stack.baseUrl}/mcp/${slug}`;
  const t = await tokensFor(resource, 'auth-code');
  assert.equal(parseCredential(t.access_token)?.kind, 'access_token');
  assert.equal(parseCredential(String(t.refresh_token))?.kind, 'refresh_token');
  assert.equal(t.expires_in, 86400);
  assert.equal((t as Record<string, unknown>)['project_slug'], slug);
  assert.equal(await gatewayStatus(t.access_token), 200);
  assert.equal(await gatewayStatus(t.access_token, otherSlug), 401);
  const info = await oc.tokenIntrospection(config, t.access_token);
  assert.equal(info.active, true);
  assert.equal(info.aud, resource);
  // The gateway's verifier reads the same records.
  const verifier = createOAuthTokenVerifier({ redis: stack.client, baseUrl: stack.baseUrl });
  const v = await verifier.verify(t.access_token);
  assert.ok(v && 'project' in v, "a person's token");
  assert.equal(v.project, slug);
  assert.equal(v.clientId, config.clientMetadata().client_id);
  assert.equal(await verifier.verify(String(t.refresh_token)), null);
  assert.equal(await verifier.verify('svc_at_notarealtoken'), null);
});

test('a PKCE verifier that does not match is refused; a plain challenge is refused', async () => {
  const resource = `${stack.baseUrl}/mcp/${slug}`;
  const { callback, state } = await authorize(resource, 'pkce');
  await assert.rejects(
    oc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: oc.randomPKCECodeVerifier(), expectedState: state }, { resource }),
    (err: { error?: string }) => err.error === 'invalid_grant',
  );
  const plain = new URL(`${stack.authUrl}/api/oauth/authorize`);
  plain.search = new URLSearchParams({
    client_id: config.clientMetadata().client_id,
    response_type: 'code',
    redirect_uri: REDIRECT,
    code_challenge: 'x'.repeat(43),
    code_challenge_method: 'plain',
    resource,
  }).toString();
  // An error before the person has seen svc is shown on svc's page, never redirected to an
  // unverified client (RFC 9700 §4.11.2; docs/auth-service.md "Unverified clients").
  const res = await fetch(plain, { redirect: 'manual' });
  assert.equal(res.status, 400);
  assert.equal(res.headers.get('location'), null);
  assert.match(await res.text(), /invalid_request/);
});

test('a resource the user has no role on is refused at approval', async () => {
  const page = await context.newPage();
  const url = oc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    code_challenge: await oc.calculatePKCECodeChallenge(oc.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
    resource: `${stack.baseUrl}/mcp/${otherSlug}`,
  });
  await page.goto(url.href);
  await page.waitForSelector('main h1');
  assert.match((await page.textContent('main')) ?? '', /no access/i);
  await shot(page, 'auth-code-no-access');
  await page.close();
});

test('refresh rotates the refresh token; reused within 30 s it answers the same pair, later it revokes the whole grant', async () => {
  const resource = `${stack.baseUrl}/mcp/${slug}`;
  const t = await tokensFor(resource, 'refresh');
  const r1 = await oc.refreshTokenGrant(config, String(t.refresh_token), { resource });
  assert.notEqual(r1.refresh_token, t.refresh_token);
  assert.equal(parseCredential(r1.access_token)?.kind, 'access_token');
  assert.equal((r1 as Record<string, unknown>)['project_slug'], slug);
  assert.equal(await gatewayStatus(r1.access_token), 200);
  // docs/security.md "Refresh tokens": a retry within 30 s gets the same pair.
  const again = await oc.refreshTokenGrant(config, String(t.refresh_token), { resource });
  assert.equal(again.access_token, r1.access_token);
  assert.equal(again.refresh_token, r1.refresh_token);
  clock.advance(30_001);
  await assert.rejects(
    oc.refreshTokenGrant(config, String(t.refresh_token), { resource }),
    (err: { error?: string }) => err.error === 'invalid_grant',
  );
  await refusedWithin(r1.access_token, 'the access token of the revoked grant');
  await assert.rejects(
    oc.refreshTokenGrant(config, String(r1.refresh_token), { resource }),
    (err: { error?: string }) => err.error === 'invalid_grant',
  );
  assert.equal((await oc.tokenIntrospection(config, r1.access_token)).active, false);
});

test('revocation: a revoked access token is refused by the gateway within a second', async () => {
  const resource = `${stack.baseUrl}/mcp/${slug}`;
  const t = await tokensFor(resource, 'revoke');
  assert.equal(await gatewayStatus(t.access_token), 200);
  await oc.tokenRevocation(config, t.access_token);
  const after = await refusedWithin(t.access_token, 'the revoked access token');
  assert.equal(after.body.error?.message, 'Invalid OAuth token');
  assert.equal((await oc.tokenIntrospection(config, t.access_token)).active, false);
});

test('CORS: a browser-based MCP client may read discovery, call the token endpoint and see the 401 challenge', async () => {
  const origin = 'http://localhost:6274';
  for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
    const res = await fetch(`${stack.authUrl}${path}`, { headers: { origin } });
    assert.equal(res.status, 200, path);
    assert.ok(res.headers.get('access-control-allow-origin'), `${path} allows ${origin}`);
  }
  const preflight = await fetch(`${stack.authUrl}/api/oauth/token`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
  });
  assert.ok(preflight.status === 204 || preflight.status === 200, `token preflight: ${preflight.status}`);
  assert.equal(preflight.headers.get('access-control-allow-origin'), origin);
  const challenge = await fetch(`${stack.baseUrl}/mcp/${slug}`, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  assert.equal(challenge.status, 401);
  assert.match(challenge.headers.get('www-authenticate') ?? '', /resource_metadata="/);
  assert.match(challenge.headers.get('access-control-expose-headers') ?? '', /www-authenticate/i);
  const prm = await fetch(`${stack.baseUrl}/.well-known/oauth-protected-resource/mcp/${slug}`, { headers: { origin } });
  assert.equal(prm.status, 200);
  assert.ok(prm.headers.get('access-control-allow-origin'));
});

test('an expired access token is refused with "Invalid OAuth token" even while its record lingers', async () => {
  const resource = `${stack.baseUrl}/mcp/${slug}`;
  const t = await tokensFor(resource, 'expired');
  assert.equal(await gatewayStatus(t.access_token), 200);
  const key = oidcRecordKey('AccessToken', t.access_token);
  const payload = JSON.parse((await stack.client.hget(key, 'payload')) ?? '{}') as Record<string, unknown>;
  assert.equal(payload['kind'], 'AccessToken');
  await stack.client.hset(key, 'payload', JSON.stringify({ ...payload, exp: Math.floor(Date.now() / 1000) - 1 }));
  await stack.client.publish('svc:invalidate', 'test:expired');
  const after = await refusedWithin(t.access_token, 'the expired access token');
  assert.equal(after.body.error?.message, 'Invalid OAuth token');
  assert.match(after.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
});
