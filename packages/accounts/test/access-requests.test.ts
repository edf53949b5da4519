/**
 * The access-request lifecycle's store (docs/management.md "Access request lifecycle"): one
 * pending request per requester and project however many arrive at once, checked against the
 * requester's latest request alone, however long the project's history.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AccountError, connectRedis, createAccounts, K, type Accounts, type Redis } from '@svc/accounts';
import { startRedis, type RedisFixture } from '@svc/testkit';

let redis: RedisFixture;
let client: Redis;
let accounts: Accounts;

before(async () => {
  redis = await startRedis();
  client = connectRedis(redis.url);
  accounts = createAccounts(client, { pepper: 'p'.repeat(32), bcryptCost: 4 });
  await accounts.workspaces.create({ slug: 'acme', owner: 'user_owner' });
  await accounts.workspaces.createProject({ slug: 'web', workspace: 'acme' });
});
after(async () => {
  client.disconnect();
  await redis.stop();
});

const ask = (id: string) =>
  accounts.accessRequests.create(
    {
      project: 'web',
      requester: { type: 'key', id, label: id },
      requestedLevel: 'EDITOR',
      reason: 'deploys',
    },
    { source: '192.0.2.1', requestId: 'test' },
  );

test('twenty concurrent requests of one requester make one pending request', async () => {
  const outcomes = await Promise.all(Array.from({ length: 20 }, () => ask('key_racer')));
  const pending = (await accounts.accessRequests.list('web')).filter((r) => r.requester.id === 'key_racer' && r.status === 'pending');
  assert.equal(pending.length, 1);
  assert.ok(outcomes.every((o) => o.id === pending[0]!.id));
  assert.equal(outcomes.filter((o) => !o.updated).length, 1, 'one made it, the others updated it');
});

/** Resolves after `turns` turns of the event loop: a Redis reply may arrive in each. */
async function turnsLater(turns: number): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

test("requests of one requester started at every point of each other's flight make one pending request and one audit entry", async () => {
  // Each requester's filings start a few event-loop turns apart, so some read the latest request
  // while another filing is between claiming it and writing it: still one request, one entry.
  for (let round = 0; round < 8; round++) {
    const who = `key_staggered_${round}`;
    const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => turnsLater(i * (round % 4)).then(() => ask(who))));
    const mine = (await accounts.accessRequests.list('web')).filter((r) => r.requester.id === who);
    assert.equal(mine.length, 1, `round ${round}: one request`);
    assert.equal(mine[0]!.status, 'pending');
    assert.ok(
      outcomes.every((o) => o.id === mine[0]!.id),
      `round ${round}: every filing answered with it`,
    );
    assert.equal(outcomes.filter((o) => !o.updated).length, 1, `round ${round}: one made it, the others updated it`);
    const created = (await accounts.audit.page('acme', { action: 'access_request.created' })).entries.filter((e) =>
      e.target.includes(mine[0]!.id),
    );
    assert.equal(created.length, 1, `round ${round}: one access_request.created entry`);
  }
});

test('a denial is remembered however many requests of others came after it', async () => {
  const first = await ask('key_denied');
  await accounts.accessRequests.decide(first.id, false);
  for (let i = 0; i < 50; i++) await ask(`key_other_${i}`);
  await assert.rejects(ask('key_denied'), (err: unknown) => err instanceof AccountError && err.code === 'cooldown');
});

test('two admins or more deciding one request at once: one decision is made, every other is refused as already decided', async () => {
  // docs/security.md "Single-use values": the move from pending is one write (DECIDE).
  const N = 8;
  for (let round = 0; round < 6; round++) {
    const who = `user_decided_${round}`;
    const asked = await accounts.accessRequests.create(
      { project: 'web', requester: { type: 'user', id: who, label: `${who}@example.com` }, requestedLevel: 'EDITOR', reason: 'r' },
      { source: '192.0.2.1', requestId: 'test' },
    );
    // Approvals and denials interleaved, each by its own admin.
    const settled = await Promise.allSettled(
      Array.from({ length: N }, (_, i) => accounts.accessRequests.decide(asked.id, i % 2 === 0, undefined, `admin${i}@example.com`)),
    );
    const made = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const summary = settled.map((s) => (s.status === 'fulfilled' ? s.value.status : String(s.reason))).join(' | ');
    assert.equal(made.length, 1, `round ${round}: ${summary}`);
    for (const s of settled)
      if (s.status === 'rejected')
        assert.ok(
          s.reason instanceof AccountError && s.reason.code === 'conflict' && /is already (approved|denied)/.test(s.reason.message),
          `round ${round}: ${summary}`,
        );
    const stored = await accounts.accessRequests.get(asked.id);
    assert.deepEqual(
      [stored?.status, stored?.decided_by, stored?.granted_level],
      [made[0]!.status, made[0]!.decided_by, made[0]!.granted_level],
      `round ${round}: the record is the one decision's`,
    );
    // The requester's role follows that decision alone.
    const role = await accounts.workspaces.roleOf(who, (await accounts.workspaces.getProject('web'))!);
    assert.equal(role, made[0]!.status === 'approved' ? 'EDITOR' : 'NONE', `round ${round}`);
    assert.equal(await client.sismember(K.projectPendingRequests('web'), asked.id), 0, `round ${round}: no longer pending`);
  }
});
