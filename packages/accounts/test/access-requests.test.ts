/**
 * The access-request lifecycle's store (docs/management.md "Access request lifecycle"): one
 * pending request per requester and project however many arrive at once, checked against the
 * requester's latest request alone, however long the project's history.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AccountError, connectRedis, createAccounts, type Accounts, type Redis } from '@svc/accounts';
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
