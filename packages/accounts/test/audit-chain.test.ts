/**
 * The audit chain on a real Redis (docs/audit.md "Chain"): however many writers append at once, from
 * however many processes, each workspace's log is one unbroken chain (seq 1, 2, 3, ..., each prev the
 * hash before it) and its export verifies; retention trims the oldest entries and the export of what
 * is left verifies from its first prev; entries written before the chain began, or beside it by an
 * older writer, are not taken for chained ones.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { K, connectRedis, createAccounts, verifyAuditExport, type Accounts, type AuditInput, type Redis } from '@svc/accounts';
import { AUDIT_RETENTION } from '@svc/policy';
import { outsideLoopBudget, startRedis, type RedisFixture } from '@svc/testkit';

let redis: RedisFixture;
let client: Redis;
let accounts: Accounts;
/** Writers on connections of their own, as the gateways, auth-services and workers of one deployment are. */
const others: Redis[] = [];

before(async () => {
  redis = await startRedis();
  client = connectRedis(redis.url);
  accounts = createAccounts(client, { pepper: 'p'.repeat(32), bcryptCost: 4 });
});
after(async () => {
  for (const c of [client, ...others]) c.disconnect();
  await redis.stop();
});

function writer(): Accounts {
  const c = connectRedis(redis.url);
  others.push(c);
  return createAccounts(c, { pepper: 'p'.repeat(32), bcryptCost: 4 });
}

const entry = (workspace: string, n: number | string, actor = 'ada@example.com'): AuditInput => ({
  workspace,
  actor,
  action: 'key.created',
  target: `key:k_${n}`,
  source: '203.0.113.9',
  requestId: `req-${n}`,
  detail: { n: String(n) },
});

/** The export's lines, as the REST route and the dashboard stream them. */
async function exportLines(workspace: string, filter = {}): Promise<string[]> {
  let text = '';
  for await (const chunk of accounts.audit.exportChunks(workspace, filter)) text += chunk;
  return text.split('\n');
}

/**
 * The verifier over an export held in memory: the test's own checking, outside the loop budget (a
 * hash per entry, thousands of entries in one turn; svc-admin and svc read a file line by line).
 */
const verify = (lines: string[], options = {}) => outsideLoopBudget(() => verifyAuditExport(lines, options));

const rowsOf = (lines: string[]) =>
  lines.filter((l) => l && !l.startsWith('{"complete"')).map((l) => JSON.parse(l) as Record<string, unknown>);

test('eight writers appending at once, 400 entries each into one log: one chain, seq 1 to 3,200, no fork, and the export verifies', async () => {
  const writers = Array.from({ length: 8 }, writer);
  const perWriter = 400;
  // Outside the loop budget: the eight writers stand for eight processes, and their replies are
  // read in the same poll phase of this one loop, each linking a batch, so one turn here holds
  // what eight processes' turns would.
  await outsideLoopBudget(() =>
    Promise.all(
      writers.flatMap((w, i) => [
        ...Array.from({ length: perWriter }, (_, n) => w.audit.record(entry('ws-race', `${i}-${n}`))),
        // A second workspace at the same time: its own chain, numbered from 1.
        ...Array.from({ length: 5 }, (_, n) => w.audit.record(entry('ws-beside', `${i}-${n}`))),
      ]),
    ),
  );
  const lines = await exportLines('ws-race');
  const verdict = await verify(lines);
  assert.equal(verdict.ok, true, JSON.stringify(verdict));
  const rows = rowsOf(lines);
  assert.equal(rows.length, writers.length * perWriter);
  assert.deepEqual(
    rows.map((r) => r['seq']),
    rows.map((_, i) => i + 1),
  );
  assert.equal(new Set(rows.map((r) => r['target'])).size, rows.length, 'every append once');
  assert.deepEqual(await client.hgetall(K.auditChain('ws-race')), { seq: String(rows.length), hash: String(rows.at(-1)!['hash']) });
  const beside = await verify(await exportLines('ws-beside'));
  assert.deepEqual(beside.ok && [beside.entries, beside.first, beside.last?.seq], [40, { seq: 1, prev: null }, 40]);
  // The stream ids follow the chain's order, as XADD's `*` gives them: Redis's clock, never behind the last.
  const ids = rows.map((r) => String(r['id']).split('-').map(BigInt) as [bigint, bigint]);
  for (let i = 1; i < ids.length; i++)
    assert.ok(ids[i]![0] > ids[i - 1]![0] || (ids[i]![0] === ids[i - 1]![0] && ids[i]![1] > ids[i - 1]![1]));
});

/**
 * Text with what JSON, UTF-8 and Redis each treat apart: quotes, escapes, controls, a NUL, non-ASCII,
 * a pair and lone surrogates (fast-check's full code point range takes seconds to set up).
 */
const tricky = (maxLength: number, minLength = 0) =>
  fc.string({
    unit: fc.constantFrom(
      'a',
      'Z',
      ' ',
      '"',
      '\\',
      '\n',
      '\u0000',
      '\u007f',
      '\u00e9',
      '\u2028',
      '\ud83d\ude00',
      '\ud800',
      '\udc00',
      '\ufeff',
    ),
    minLength,
    maxLength,
  });

test('whatever is written, the export holds exactly what was hashed: random content verifies', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.record({
          actor: fc.oneof(tricky(20), fc.constantFrom('ada@example.com', 'svc', 'key:svc-ab12', 'service:svc-admin')),
          target: tricky(30),
          source: fc.string({ maxLength: 20 }),
          detail: fc.dictionary(tricky(8, 1), tricky(20), {
            maxKeys: 4,
          }),
        }),
        { minLength: 1, maxLength: 8 },
      ),
      async (inputs) => {
        const ws = `ws-random-${Math.random().toString(36).slice(2, 10)}`;
        for (const [n, i] of inputs.entries()) await accounts.audit.record({ ...entry(ws, n), ...i });
        const lines = await exportLines(ws);
        const verdict = await verify(lines);
        assert.equal(verdict.ok, true, `${JSON.stringify(verdict)}\n${lines.join('\n')}`);
        assert.equal(verdict.ok && verdict.entries, inputs.length);
      },
    ),
    { numRuns: 40 },
  );
});

test("retention trims the oldest entries: what is left verifies from its first prev, and the chain goes on from the trimmed one's hash", async () => {
  for (let n = 0; n < 30; n++) await accounts.audit.record(entry('ws-trimmed', n));
  const whole = rowsOf(await exportLines('ws-trimmed'));
  // As the appending script's trims do (XTRIM), the first ten go.
  await client.xtrim(K.auditLog('ws-trimmed'), 'MINID', String(whole[10]!['id']));
  const rest = await verify(await exportLines('ws-trimmed'));
  assert.deepEqual(rest.ok && [rest.entries, rest.first], [20, { seq: 11, prev: whole[9]!['hash'] }]);
  assert.equal((await verify(await exportLines('ws-trimmed'), { anchor: String(whole[9]!['hash']) })).ok, true);
  // Every entry trimmed: the next one still follows the last, by the chain's head.
  await client.xtrim(K.auditLog('ws-trimmed'), 'MAXLEN', 0);
  await accounts.audit.record(entry('ws-trimmed', 'after'));
  const next = await verify(await exportLines('ws-trimmed'), { anchor: String(whole.at(-1)!['hash']) });
  assert.deepEqual(next.ok && next.first, { seq: 31, prev: whole.at(-1)!['hash'] });
});

test("a workspace's entry cap trims its log as appends go; the export of the kept entries verifies", async () => {
  const cap = AUDIT_RETENTION.FREE.maxEntries;
  const total = cap + 300;
  // Bursts of 250 appends at once: more than a batch (100), and each burst one turn's work.
  for (let done = 0; done < total; done += 250)
    await Promise.all(Array.from({ length: Math.min(250, total - done) }, (_, i) => accounts.audit.record(entry('ws-capped', done + i))));
  const verdict = await verify(await exportLines('ws-capped'));
  assert.equal(verdict.ok, true, JSON.stringify(verdict));
  if (!verdict.ok) return;
  // Redis trims whole internal nodes (100 entries): at most one node over the cap is kept.
  assert.ok(verdict.entries >= cap && verdict.entries <= cap + 100, `kept ${verdict.entries}`);
  assert.deepEqual([verdict.first!.seq + verdict.entries - 1, verdict.last!.seq], [total, total]);
  assert.match(String(verdict.first!.prev), /^[0-9a-f]{64}$/, 'the first kept entry names the trimmed one before it');
});

test('entries written before the chain began, or beside it by a writer that knows none, are not taken for chained ones', async () => {
  // An entry of the release before the chain: no principal, agent, seq, prev or hash.
  const legacy = (at: number) => [
    'at',
    String(at),
    'actor',
    'ada@example.com',
    'action',
    'key.created',
    'target',
    't',
    'source',
    '',
    'request',
    '',
    'detail',
    '{}',
  ];
  await client.xadd(K.auditLog('ws-upgraded'), '*', ...legacy(Date.now() - 10_000));
  await accounts.audit.record(entry('ws-upgraded', 1));
  const [old, first] = rowsOf(await exportLines('ws-upgraded'));
  assert.deepEqual(
    { principal: old!['principal'], agent: old!['agent'], seq: old!['seq'] },
    {
      principal: { type: 'user', id: '', label: 'ada@example.com' },
      agent: { type: 'unknown', id: '', name: '', verified: false, key: null },
      seq: undefined,
    },
    'an old entry is read with its parties from its actor, and no link',
  );
  assert.deepEqual([first!['seq'], first!['prev']], [1, null], 'the chain starts at the first entry written with one');
  const whole = await verify(await exportLines('ws-upgraded'));
  assert.equal(whole.ok ? null : whole.line, 1);
  assert.match(whole.ok ? '' : whole.problem, /^the entry carries no chain \(seq, prev and hash\): it was written before the chain began/);
  assert.equal((await verify(await exportLines('ws-upgraded', { from: Number(first!['at']) }))).ok, true);
  // An older writer appends beside the chain during an upgrade: the next chained entry still lands
  // after it (the script saw the log's last id move), and the verifier names the unchained one.
  await client.xadd(K.auditLog('ws-upgraded'), '*', ...legacy(Date.now() + 10_000));
  await accounts.audit.record(entry('ws-upgraded', 2));
  const rows = rowsOf(await exportLines('ws-upgraded'));
  assert.deepEqual(
    rows.map((r) => r['seq'] ?? null),
    [null, 1, null, 2],
  );
  const mixed = await verify(await exportLines('ws-upgraded', { from: Number(first!['at']) }));
  assert.equal(mixed.ok ? null : mixed.line, 2);
});
