/**
 * A project's access-request history is trimmed (docs/management.md "Access request lifecycle"):
 * past DECIDED_REQUESTS_KEPT decided requests the oldest decided leave the project's list, their
 * requester's list and Redis, pending ones stay whatever their age, and a denial stays known to
 * its requester's cooldown even once trimmed, until the cooldown ends.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AccountError, connectRedis, createAccounts, DECIDED_REQUESTS_KEPT, K, type Accounts, type Redis } from '@svc/accounts';
import { startRedis, type RedisFixture } from '@svc/testkit';

let redis: RedisFixture;
let client: Redis;
let accounts: Accounts;
let clock = Date.parse('2026-01-01T00:00:00Z');

before(async () => {
  redis = await startRedis();
  client = connectRedis(redis.url);
  accounts = createAccounts(client, { pepper: 'p'.repeat(32), bcryptCost: 4, now: () => clock });
  await accounts.workspaces.create({ slug: 'acme', owner: 'user_owner' });
  await accounts.workspaces.createProject({ slug: 'web', workspace: 'acme' });
});
after(async () => {
  client.disconnect();
  await redis.stop();
});

const ask = (type: 'key' | 'user', id: string) =>
  accounts.accessRequests.create(
    { project: 'web', requester: { type, id, label: id }, requestedLevel: 'VIEWER', reason: 'r' },
    { source: '192.0.2.1', requestId: 'test' },
  );

test('past DECIDED_REQUESTS_KEPT decided requests, the oldest decided are dropped; pending and the denial cooldown stay', async () => {
  // The oldest of all: a pending request, then a person's denied one.
  const oldPending = await ask('key', 'key_waiting');
  clock += 1000;
  const denied = await ask('user', 'user_denied');
  await accounts.accessRequests.decide(denied.id, false, undefined, 'admin');
  const decided: string[] = [denied.id];
  for (let i = 0; i < DECIDED_REQUESTS_KEPT + 10; i++) {
    clock += 1000;
    // People approved, keys denied (approving a key needs the key).
    const r = i % 2 === 0 ? await ask('user', `user_${i}`) : await ask('key', `key_${i}`);
    await accounts.accessRequests.decide(r.id, i % 2 === 0, 'VIEWER', 'admin');
    decided.push(r.id);
  }
  const listed = await accounts.accessRequests.list('web');
  const kept = listed.filter((r) => r.status !== 'pending').map((r) => r.id);
  assert.equal(kept.length, DECIDED_REQUESTS_KEPT, 'the decided requests kept');
  assert.deepEqual(kept, decided.slice(-DECIDED_REQUESTS_KEPT), 'the newest decided are the ones kept');
  assert.ok(
    listed.some((r) => r.id === oldPending.id),
    'a pending request is never trimmed',
  );
  assert.equal(await client.zscore(K.userAccessRequests('user_denied'), denied.id), null, 'gone from its requester list too');
  assert.equal(await client.exists(K.accessRequest(decided[1]!)), 0, 'a trimmed record is deleted');
  // Trimmed, the denial is still its requester's latest: its record lives out the day's cooldown, which holds.
  const ttl = await client.pttl(K.accessRequest(denied.id));
  assert.ok(ttl > 0 && ttl <= 86_400_000, `the kept denial ends with its cooldown (${ttl} ms)`);
  await assert.rejects(ask('user', 'user_denied'), (e: unknown) => e instanceof AccountError && e.code === 'cooldown');
  clock += 86_400_000;
  const again = await ask('user', 'user_denied');
  assert.notEqual(again.id, denied.id);
  assert.equal(await client.exists(K.accessRequest(denied.id)), 0, 'replaced, the kept denial is deleted');
});
