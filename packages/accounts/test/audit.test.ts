/**
 * The audit log on a real Redis (docs/audit.md): newest first in pages with a cursor, filtered by
 * action, exported oldest first, and nothing older than 90 days read back.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connectRedis, createAccounts, type Accounts, type Redis } from '@svc/accounts';
import { startRedis, testClock, type RedisFixture } from '@svc/testkit';

let redis: RedisFixture;
let client: Redis;
let accounts: Accounts;
const clock = testClock({ start: Date.UTC(2026, 0, 1) });

before(async () => {
  redis = await startRedis();
  client = connectRedis(redis.url);
  accounts = createAccounts(client, { pepper: 'p'.repeat(32), bcryptCost: 4, now: clock.now });
});
after(async () => {
  client.disconnect();
  await redis.stop();
});

const entry = (workspace: string, n: number, action: 'key.created' | 'key.revoked' = 'key.created') => ({
  workspace,
  actor: 'ada@example.com',
  action,
  target: `key:key_${n}`,
  source: '127.0.0.1',
  requestId: `req-${n}`,
});

test('pages of 50, newest first, with a cursor to the end; a filter keeps only its action', async () => {
  for (let n = 0; n < 120; n++) {
    clock.advance(1000);
    await accounts.audit.record(entry('ws-a', n, n % 3 === 0 ? 'key.revoked' : 'key.created'));
  }
  await accounts.audit.record(entry('ws-b', 999));
  const seen: string[] = [];
  let cursor: string | undefined;
  const sizes: number[] = [];
  do {
    const page = await accounts.audit.page('ws-a', cursor ? { cursor } : {});
    sizes.push(page.entries.length);
    seen.push(...page.entries.map((e) => e.target));
    cursor = page.next ?? undefined;
  } while (cursor);
  assert.deepEqual(sizes, [50, 50, 20]);
  assert.deepEqual(
    seen,
    Array.from({ length: 120 }, (_, i) => `key:key_${119 - i}`),
    'every entry once, newest first, no other workspace',
  );

  const revoked = await accounts.audit.page('ws-a', { action: 'key.revoked', limit: 15 });
  assert.equal(revoked.entries.length, 15);
  assert.ok(revoked.entries.every((e) => e.action === 'key.revoked'));
  const rest = await accounts.audit.page('ws-a', { action: 'key.revoked', limit: 100, cursor: revoked.next! });
  assert.equal(rest.entries.length, 40 - 15);
  assert.equal(rest.next, null);

  const lines = await accounts.audit.exportLines('ws-a');
  assert.equal(lines.length, 120);
  const first = JSON.parse(lines[0]!);
  assert.deepEqual(
    { target: first.target, actor: first.actor, source: first.source, requestId: first.requestId, workspace: first.workspace },
    { target: 'key:key_0', actor: 'ada@example.com', source: '127.0.0.1', requestId: 'req-0', workspace: 'ws-a' },
  );
});

test('entries are kept 90 days: older ones are neither paged nor exported', async () => {
  await accounts.audit.record(entry('ws-old', 1));
  clock.advance(91 * 86_400_000);
  await accounts.audit.record(entry('ws-old', 2));
  assert.deepEqual(
    (await accounts.audit.page('ws-old')).entries.map((e) => e.target),
    ['key:key_2'],
  );
  assert.equal((await accounts.audit.exportLines('ws-old')).length, 1);
});
