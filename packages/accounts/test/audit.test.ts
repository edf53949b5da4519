/**
 * The audit log on a real Redis (docs/audit.md): newest first in pages with a cursor, filtered by
 * action through its index, exported oldest first with a closing line, and kept as long as the
 * workspace's plan says: its days and its most entries.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AUDIT_EXPORT_BATCH, K, connectRedis, createAccounts, type Accounts, type Redis } from '@svc/accounts';
import { AUDIT_RETENTION } from '@svc/policy';
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

/** The export's lines, parsed: entries, then the closing line. */
async function exported(workspace: string, from = accounts): Promise<Record<string, unknown>[]> {
  let text = '';
  for await (const chunk of from.audit.exportChunks(workspace)) text += chunk;
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

let onRealClock: Accounts | undefined;
const live = () => (onRealClock ??= createAccounts(client, { pepper: 'p'.repeat(32), bcryptCost: 4 }));

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

  const lines = await exported('ws-a');
  assert.equal(lines.length, 121);
  assert.deepEqual(lines.at(-1), { complete: true, entries: 120 }, 'the closing line counts the entries');
  const first = lines[0]!;
  assert.deepEqual(
    { target: first.target, actor: first.actor, source: first.source, requestId: first.requestId, workspace: first.workspace },
    { target: 'key:key_0', actor: 'ada@example.com', source: '127.0.0.1', requestId: 'req-0', workspace: 'ws-a' },
  );
});

test("entries are kept as long as the plan says: FREE's 30 days, TEAM's 365", async () => {
  await accounts.workspaces.create({ slug: 'ws-team', owner: 'user_x', plan: 'TEAM' });
  await accounts.audit.record(entry('ws-old', 1));
  await accounts.audit.record(entry('ws-team', 1));
  clock.advance((AUDIT_RETENTION.FREE.days + 1) * 86_400_000);
  await accounts.audit.record(entry('ws-old', 2));
  await accounts.audit.record(entry('ws-team', 2));
  assert.deepEqual(
    (await accounts.audit.page('ws-old')).entries.map((e) => e.target),
    ['key:key_2'],
  );
  assert.equal((await exported('ws-old')).length, 1 + 1);
  assert.deepEqual(
    (await accounts.audit.page('ws-team')).entries.map((e) => e.target),
    ['key:key_2', 'key:key_1'],
    'a TEAM workspace still has the entry of 31 days ago',
  );
  clock.advance((AUDIT_RETENTION.TEAM.days - AUDIT_RETENTION.FREE.days) * 86_400_000);
  assert.deepEqual(
    (await accounts.audit.page('ws-team', { action: 'key.created' })).entries.map((e) => e.target),
    ['key:key_2'],
    'past 365 days, not even through the filter',
  );
});

/**
 * `n` entries written at once (the appends pipelined over the one connection), on the real clock:
 * the trims compare with stream ids, which are Redis's time.
 */
/** `n` entries, in bursts of 250 appends at once: more than a batch, and each burst one turn's work. */
async function flood(workspace: string, n: number, action: 'key.created' | 'key.revoked' = 'key.created'): Promise<void> {
  for (let done = 0; done < n; done += 250)
    await Promise.all(Array.from({ length: Math.min(250, n - done) }, (_, i) => live().audit.record(entry(workspace, done + i, action))));
}

test("a workspace keeps at most its plan's entries, whatever their age; the index follows the log", async () => {
  const cap = AUDIT_RETENTION.FREE.maxEntries;
  await live().audit.record(entry('ws-cap', -1, 'key.revoked'));
  await flood('ws-cap', cap + 2 * AUDIT_EXPORT_BATCH);
  const length = await client.xlen(K.auditLog('ws-cap'));
  // Redis trims whole internal nodes (stream-node-max-entries, 100 by default): at most one node over.
  assert.ok(length >= cap && length <= cap + 100, `kept ${length}, cap ${cap}`);
  const revoked = await live().audit.page('ws-cap', { action: 'key.revoked' });
  assert.deepEqual(revoked, { entries: [], next: null }, 'the first entry went with the cap, and the filter does not find it');
  const indexed = await client.xlen(K.auditByAction('ws-cap', 'key.created'));
  assert.ok(indexed >= cap - 100 && indexed <= cap + 200, `the index was trimmed with the log: ${indexed}`);
  await live().audit.record(entry('ws-cap', -2, 'key.revoked'));
  assert.deepEqual(
    (await live().audit.page('ws-cap', { action: 'key.revoked' })).entries.map((e) => e.target),
    ['key:key_-2'],
  );
  const lines = await exported('ws-cap', live());
  assert.equal(lines.at(-1)!['entries'], lines.length - 1);
  assert.ok(lines.length - 1 <= cap + 100);
});

test('a filter reads its index, not the log: a rare action among many is found in a handful of commands', async () => {
  await live().audit.record(entry('ws-rare', 1, 'key.revoked'));
  await flood('ws-rare', 5_000);
  const before = Number((await client.info('stats')).match(/total_commands_processed:(\d+)/)![1]);
  const page = await live().audit.page('ws-rare', { action: 'key.revoked', limit: 10 });
  const after = Number((await client.info('stats')).match(/total_commands_processed:(\d+)/)![1]);
  assert.deepEqual(
    page.entries.map((e) => e.target),
    ['key:key_1'],
  );
  assert.equal(page.next, null);
  // The plan lookup, the index read, one read per id found, and the INFO itself.
  assert.ok(after - before <= 5, `${after - before} commands for one filtered page`);
});
