/**
 * Idempotent refresh (docs/security.md "Refresh tokens"): a refresh token presented again within
 * 30 s of its first use gets the same new pair, however many requests race and on whichever of two
 * auth-service instances sharing one Redis; past 30 s reuse revokes the grant; another client gets
 * nothing; a refresh refused for a resource its grant lacks leaves the token and the grant usable.
 * The window is measured on a test clock moved forward, never waited for.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { oidcDigest, oidcRecordKey } from '@svc/accounts';
import { freePort, testClock } from '@svc/testkit';
import { CLAIM_LEASE_MS } from '../src/oauth/refresh-replay.ts';
import { startAuthService, type RunningAuthService } from '../src/server.ts';
import { newProject, postForm, startAuth, type AuthFixture, mintRefreshToken as mintSharedRefreshToken } from './support.ts';

const clock = testClock({ frozen: false });
let f: AuthFixture;
let second: RunningAuthService;

before(async () => {
  f = await startAuth({ now: clock.now });
  const port = await freePort();
  second = await startAuthService({ config: { ...f.config, port }, now: clock.now });
});
after(async () => {
  await second.close();
  await f.close();
});

const mintRefreshToken = () => mintSharedRefreshToken(f, 'refresh');

const refresh = (token: string, clientId = 'svc-mcp', url = f.url) =>
  postForm(`${url}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: token, client_id: clientId });

/** The refresh tokens of a grant that are stored and not consumed. */
async function liveRefreshTokens(grantId: string): Promise<number> {
  const keys = await f.client.smembers(`svc:oidc:grant-keys:${grantId}`);
  let live = 0;
  for (const key of keys) {
    const h = await f.client.hgetall(key);
    const payload = h['payload'] ? (JSON.parse(h['payload']) as { kind?: string }) : null;
    if (payload?.kind === 'RefreshToken' && !h['consumed']) live += 1;
  }
  return live;
}

/** Whether the provider marked this refresh token used (rotation consumes it). */
const consumed = async (token: string) => (await f.client.hexists(oidcRecordKey('RefreshToken', token), 'consumed')) === 1;

const grantAlive = async (grantId: string) => (await f.client.exists(oidcRecordKey('Grant', grantId))) === 1;

test('ten concurrent refreshes over two instances get one identical pair; one refresh token stays alive', async () => {
  const { token, grantId } = await mintRefreshToken();
  const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => refresh(token, 'svc-mcp', i % 2 ? second.url : f.url)));
  for (const a of answers) assert.equal(a.status, 200, JSON.stringify(a.body));
  const first = answers[0]!.body;
  assert.match(String(first['access_token']), /^svc_at_/);
  assert.notEqual(first['refresh_token'], token);
  for (const a of answers) assert.deepEqual(a.body, first);
  assert.ok(await grantAlive(grantId));
  assert.equal(await liveRefreshTokens(grantId), 1);
  // The new refresh token is the live one.
  const next = await refresh(String(first['refresh_token']));
  assert.equal(next.status, 200);
  assert.equal(await liveRefreshTokens(grantId), 1);
});

test('the claim is a lease of CLAIM_LEASE_MS held under a value of the claiming request, not the 30 s window', async () => {
  const { token } = await mintRefreshToken();
  assert.equal((await refresh(token)).status, 200);
  const key = `svc:oidc:refresh-claim:${oidcDigest(token)}`;
  const ttl = await f.client.pttl(key);
  assert.ok(ttl > 0 && ttl <= CLAIM_LEASE_MS, `the claim lives ${ttl} ms`);
  assert.match(String(await f.client.get(key)), /^[\w-]{22}$/);
});

test('within 30 s of its first use the token answers with the same pair', async () => {
  const { token, grantId } = await mintRefreshToken();
  const a = await refresh(token);
  clock.advance(29_000);
  const b = await refresh(token, 'svc-mcp', second.url);
  assert.equal(b.status, 200);
  assert.deepEqual(b.body, a.body);
  assert.ok(await grantAlive(grantId));
});

test('past 30 s, reusing the token revokes the whole grant', async () => {
  const { token, grantId } = await mintRefreshToken();
  const a = await refresh(token);
  assert.equal(a.status, 200);
  clock.advance(30_001);
  const again = await refresh(token);
  assert.equal(again.status, 400);
  assert.equal(again.body['error'], 'invalid_grant');
  assert.equal(await grantAlive(grantId), false);
  assert.equal((await refresh(String(a.body['refresh_token']))).body['error'], 'invalid_grant');
});

test('another client cannot replay the pair, nor revoke the grant', async () => {
  const { token, grantId } = await mintRefreshToken();
  const a = await refresh(token);
  const foreign = await refresh(token, 'svc-companion');
  assert.equal(foreign.status, 400);
  assert.equal(foreign.body['error'], 'invalid_grant');
  assert.equal(foreign.body['access_token'], undefined);
  assert.ok(await grantAlive(grantId));
  assert.deepEqual((await refresh(token)).body, a.body);
});

test('a foreign client presenting an unused token neither rotates it nor blocks its owner', async () => {
  const { token } = await mintRefreshToken();
  const foreign = await refresh(token, 'svc-companion');
  assert.equal(foreign.body['error'], 'invalid_grant');
  const own = await refresh(token);
  assert.equal(own.status, 200, JSON.stringify(own.body));
});

test('Redis holds the pair only sealed, under a digest of the token', async () => {
  const { token } = await mintRefreshToken();
  const a = await refresh(token);
  const keys = await f.client.keys('svc:oidc:refresh-*');
  assert.ok(keys.every((k) => !k.includes(token)));
  for (const k of keys) {
    const v = (await f.client.get(k)) ?? '';
    assert.ok(!v.includes(String(a.body['access_token'])) && !v.includes(String(a.body['refresh_token'])));
    assert.ok((await f.client.pttl(k)) <= 30_000);
  }
});

test('a refresh refused for a resource the grant lacks leaves the token and the grant usable (RFC 8707 §2.2)', async () => {
  const { token, grantId } = await mintRefreshToken();
  // Another existing project: a resource the provider knows, but not this grant's.
  const { resource: other } = await newProject(f, 'other');
  const wrong = await postForm(`${f.url}/api/oauth/token`, {
    grant_type: 'refresh_token',
    refresh_token: token,
    client_id: 'svc-mcp',
    resource: other,
  });
  assert.equal(wrong.status, 400, JSON.stringify(wrong.body));
  assert.equal(wrong.body['error'], 'invalid_target');
  assert.equal(await consumed(token), false);
  const right = await refresh(token);
  assert.equal(right.status, 200, JSON.stringify(right.body));
  assert.ok(await grantAlive(grantId));
});

test('a refresh naming two resources is refused without ending the grant', async () => {
  const { token, grantId, resource } = await mintRefreshToken();
  const { resource: other } = await newProject(f, 'other');
  const body = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token, client_id: 'svc-mcp' });
  body.append('resource', resource);
  body.append('resource', other);
  const res = await fetch(`${f.url}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  assert.equal(res.status, 400);
  assert.equal(((await res.json()) as { error?: string }).error, 'invalid_target');
  assert.equal(await consumed(token), false);
  const right = await postForm(`${f.url}/api/oauth/token`, {
    grant_type: 'refresh_token',
    refresh_token: token,
    client_id: 'svc-mcp',
    resource,
  });
  assert.equal(right.status, 200, JSON.stringify(right.body));
  assert.ok(await grantAlive(grantId));
});
