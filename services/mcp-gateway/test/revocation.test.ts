/** Revocation and plan changes reach every replica within one second (Redis pub/sub). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createAccounts, INVALIDATION_CHANNEL, REVOKED_KEYS_KEPT } from '@svc/accounts';
import { eventually, waitFor } from '@svc/testkit';
import { call, post, rpc, seed, startFixture, type GatewayFixture } from './support.ts';

let f: GatewayFixture;
before(async () => {
  f = await startFixture({ AUTH_CACHE_TTL_MS: '60000' });
});
after(() => f.close());

test('a key revoked through one replica is refused by another within one second', async () => {
  const replica = await f.startReplica();
  const s = await seed(f.accounts);
  // Both replicas have the key cached (cache lifetime here is 60 s, so only pub/sub can clear it).
  assert.equal((await post(f.url, `/mcp/${s.project}`, rpc('ping'), { 'X-API-Key': s.key })).status, 200);
  assert.equal((await post(replica.url, `/mcp/${s.project}`, rpc('ping'), { 'X-API-Key': s.key })).status, 200);
  await f.accounts.keys.revoke(s.keyId);
  await waitFor(async () => (await post(replica.url, `/mcp/${s.project}`, rpc('ping'), { 'X-API-Key': s.key })).status === 401, {
    timeout: 1000,
    message: 'the other replica to refuse the revoked key',
  });
  const res = await post(f.url, `/mcp/${s.project}`, rpc('ping'), { 'X-API-Key': s.key });
  assert.equal(res.body.error.message, 'Invalid API key');
});

test('a revoked key forgotten past REVOKED_KEYS_KEPT is still refused: 401 Invalid API key, never a 500', async () => {
  const s = await seed(f.accounts);
  assert.equal((await post(f.url, `/mcp/${s.project}`, rpc('ping'), { 'X-API-Key': s.key })).status, 200);
  // Revoked an hour ago: revocations of one millisecond are ordered by id, not by which came first.
  const anHourAgo = createAccounts(f.redis.client, { pepper: f.config.keyPepper, bcryptCost: 4, now: () => Date.now() - 3_600_000 });
  await anHourAgo.keys.revoke(s.keyId);
  for (let i = 0; i < REVOKED_KEYS_KEPT; i++) {
    const k = await f.accounts.keys.createProjectKey({ project: s.project, workspace: s.workspace, name: `k${i}` });
    await f.accounts.keys.revoke(k.id);
  }
  assert.equal(await f.accounts.keys.getById(s.keyId), null, 'the first revoked key was forgotten');
  for (const path of [`/mcp/${s.project}`, `/api/v1/projects/${s.project}/keys`]) {
    const res = path.startsWith('/mcp')
      ? await post(f.url, path, rpc('ping'), { 'X-API-Key': s.key })
      : await fetch(new URL(path, f.url), { headers: { 'X-API-Key': s.key } }).then(async (r) => ({
          status: r.status,
          body: await r.json(),
        }));
    assert.equal(res.status, 401, path);
    assert.match(JSON.stringify(res.body), /Invalid API key/, path);
  }
});

test('a plan change applies at once on every replica', async () => {
  const replica = await f.startReplica();
  const s = await seed(f.accounts, { plan: 'FREE' });
  const before = await post(replica.url, `/mcp/${s.project}`, rpc('ping'), { 'X-API-Key': s.key });
  assert.equal(before.headers.get('x-ratelimit-limit'), '30');
  await f.accounts.workspaces.setPlan(s.workspace, 'TEAM');
  await eventually(
    async () => {
      const after = await post(replica.url, `/mcp/${s.project}`, rpc('ping'), { 'X-API-Key': s.key });
      assert.equal(after.headers.get('x-ratelimit-limit'), '300');
    },
    { timeout: 1000, message: 'the replica to apply the TEAM plan' },
  );
});

test('a role change applies at once to personal keys', async () => {
  const owner = await seed(f.accounts);
  const other = await f.accounts.users.create({
    emailVerified: true,
    email: `member-${Date.now()}@example.com`,
    password: 'correct horse battery',
  });
  const personal = await f.accounts.keys.createUserKey({ userId: other.id });
  const list = async () =>
    (await post(f.url, `/mcp/${owner.project}`, call('svc_help'), { 'X-API-Key': personal.key })).body.result.structuredContent.role;
  assert.equal(await list(), 'NONE');
  await f.accounts.workspaces.setRole(owner.project, other.id, 'VIEWER');
  await eventually(async () => assert.equal(await list(), 'VIEWER'), { timeout: 1000, message: 'the new role to apply' });
});

test('the cache is emptied on any invalidation message and when the subscription reconnects', async () => {
  const s = await seed(f.accounts);
  await post(f.url, `/mcp/${s.project}`, rpc('ping'), { 'X-API-Key': s.key });
  assert.ok(f.gw.gateway.cache.size > 0);
  await f.redis.client.publish(INVALIDATION_CHANNEL, 'anything');
  await waitFor(() => f.gw.gateway.cache.size === 0, { timeout: 1000, message: 'the invalidation message to empty the cache' });
});
