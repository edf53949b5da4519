/**
 * The audit log's filters on a real Redis (docs/audit.md "Reading"): by person (actor), action and
 * time range, in pages and in the export, checked against a plain filter of every entry over
 * random ranges; and the bound of a filtered page: it reads at most AUDIT_FILTER_SCAN entries.
 */
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, before, test } from 'node:test';
import {
  AUDIT_CLOCK_SLACK_MS,
  AUDIT_EXPORT_END,
  AUDIT_FILTER_SCAN,
  connectRedis,
  createAccounts,
  type Accounts,
  type AuditAction,
  type AuditFilter,
  type Redis,
} from '@svc/accounts';
import { startRedis, type RedisFixture } from '@svc/testkit';

let redis: RedisFixture;
let client: Redis;
// The real clock: a date range is sought by stream id, which Redis stamps with its own clock.
let accounts: Accounts;

before(async () => {
  redis = await startRedis();
  client = connectRedis(redis.url);
  accounts = createAccounts(client, { pepper: 'p'.repeat(32), bcryptCost: 4 });
});
after(async () => {
  client.disconnect();
  await redis.stop();
});

interface Row {
  id: string;
  at: number;
  actor: string;
  action: string;
}

async function exported(workspace: string, filter: AuditFilter = {}): Promise<{ rows: Row[]; end: Record<string, unknown> }> {
  let text = '';
  for await (const chunk of accounts.audit.exportChunks(workspace, filter)) text += chunk;
  const lines = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { rows: lines.slice(0, -1) as unknown as Row[], end: lines.at(-1)! };
}

/** Every page of a filtered listing, followed by its cursor, newest first. */
async function paged(workspace: string, filter: AuditFilter, limit: number): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const page = await accounts.audit.page(workspace, { ...filter, limit, ...(cursor ? { cursor } : {}) });
    assert.ok(page.entries.length <= limit);
    rows.push(...page.entries);
    if (!page.next) return rows;
    cursor = page.next;
  }
  throw new Error('the listing did not end');
}

const ACTORS = ['ada@example.com', 'Bob@Example.com', 'key:svc-ab12', 'service:sweep'];
const ACTIONS: AuditAction[] = ['key.created', 'key.revoked', 'member.added'];

/** A seeded generator (mulberry32), so a failing case can be replayed from its seed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

test('pages and the export filtered by person, action and time range hold exactly what a plain filter keeps, over random ranges', async () => {
  const ws = 'ws-filters';
  for (let n = 0; n < 150; n++) {
    await accounts.audit.record({
      workspace: ws,
      actor: ACTORS[n % ACTORS.length]!,
      action: ACTIONS[(n * 7) % ACTIONS.length]!,
      target: `key:key_${n}`,
      source: '127.0.0.1',
      requestId: `req-${n}`,
    });
    // Spread the entries over a few milliseconds each, so ranges cut between them.
    if (n % 10 === 0) await new Promise((r) => setImmediate(r));
  }
  const all = (await exported(ws)).rows;
  assert.equal(all.length, 150);
  const first = all[0]!.at;
  const last = all.at(-1)!.at;
  const seed = randomInt(2 ** 31);
  const rand = random(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  for (let i = 0; i < 60; i++) {
    const a = first - 5 + Math.floor(rand() * (last - first + 10));
    const b = first - 5 + Math.floor(rand() * (last - first + 10));
    const filter: AuditFilter = {};
    if (rand() < 0.8) filter.from = Math.min(a, b);
    if (rand() < 0.8) filter.to = Math.max(a, b);
    if (rand() < 0.5) filter.actor = pick(ACTORS).toUpperCase();
    if (rand() < 0.4) filter.action = pick(ACTIONS);
    const expected = all.filter(
      (e) =>
        (filter.from === undefined || e.at >= filter.from) &&
        (filter.to === undefined || e.at <= filter.to) &&
        (filter.actor === undefined || e.actor.toLowerCase() === filter.actor.toLowerCase()) &&
        (filter.action === undefined || e.action === filter.action),
    );
    const ids = (rows: Row[]) => rows.map((r) => r.id);
    const why = `seed ${seed}, case ${i}: ${JSON.stringify(filter)}`;
    assert.deepEqual(ids(await paged(ws, filter, 1 + Math.floor(rand() * 40))), ids(expected).reverse(), `pages, ${why}`);
    const out = await exported(ws, filter);
    assert.deepEqual(ids(out.rows), ids(expected), `export, ${why}`);
    assert.deepEqual(out.end, { [AUDIT_EXPORT_END]: true, entries: expected.length }, why);
  }
});

test('a filter by person reads at most AUDIT_FILTER_SCAN entries a page, then answers what it found with a cursor to go on', async () => {
  const ws = 'ws-scan';
  const record = (actor: string, n: number) =>
    accounts.audit.record({ workspace: ws, actor, action: 'key.created', target: `key:k${n}`, source: '127.0.0.1', requestId: `r${n}` });
  await record('rare@example.com', -1);
  for (let n = 0; n < AUDIT_FILTER_SCAN + 10; n++) await record('busy@example.com', n);
  const sent: string[] = [];
  const watched = client.duplicate();
  const send = watched.sendCommand.bind(watched);
  watched.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
    sent.push(command.name);
    return (send as (...a: unknown[]) => unknown)(command, ...rest);
  }) as typeof watched.sendCommand;
  try {
    const scanning = createAccounts(watched, { pepper: 'p'.repeat(32), bcryptCost: 4 });
    const first = await scanning.audit.page(ws, { actor: 'rare@example.com' });
    assert.deepEqual(first.entries, [], 'the newest AUDIT_FILTER_SCAN entries hold none of its');
    assert.ok(first.next, 'a cursor to go on');
    assert.equal(sent.filter((c) => c === 'xrevrange').length, AUDIT_FILTER_SCAN / 500, 'batches of 500, up to the bound');
    const second = await scanning.audit.page(ws, { actor: 'rare@example.com', cursor: first.next });
    assert.deepEqual(
      second.entries.map((e) => e.target),
      ['key:k-1'],
    );
    assert.equal(second.next, null);
  } finally {
    watched.disconnect();
  }
  assert.equal(AUDIT_FILTER_SCAN, 2000);
});

test("a time range matches the entry's own time although Redis's clock stamped its id: up to AUDIT_CLOCK_SLACK_MS apart", async () => {
  assert.equal(AUDIT_CLOCK_SLACK_MS, 60_000);
  const ahead = createAccounts(client, { pepper: 'p'.repeat(32), bcryptCost: 4, now: () => Date.now() + 45_000 });
  const behind = createAccounts(client, { pepper: 'p'.repeat(32), bcryptCost: 4, now: () => Date.now() - 45_000 });
  for (const [n, writer] of [ahead, behind].entries())
    await writer.audit.record({
      workspace: 'ws-skew',
      actor: 'ada@example.com',
      action: 'key.created',
      target: `t${n}`,
      source: '127.0.0.1',
      requestId: `r${n}`,
    });
  const all = (await exported('ws-skew')).rows;
  for (const e of all) {
    const around = { from: e.at - 1, to: e.at + 1 };
    const page = await accounts.audit.page('ws-skew', around);
    assert.deepEqual(
      page.entries.map((x) => x.id),
      [e.id],
      `the page finds the entry written ${e.at - Number(e.id.split('-')[0])} ms off Redis's clock`,
    );
    assert.deepEqual(
      (await exported('ws-skew', around)).rows.map((x) => x.id),
      [e.id],
      'and the export',
    );
  }
});
