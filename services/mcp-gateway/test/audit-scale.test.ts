/**
 * The audit log at a size an owner can reach by hand (docs/audit.md "Retention", "Reading", "Export"), on a running
 * gateway and a real Redis: the export streamed with bounded memory and no long Redis command,
 * a filter on a rare action answering at once, bad parameters refused with 400 naming them, and a
 * Redis that stops answering: 503 with Retry-After before the first byte, a cut body after it.
 */
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { after, before, test } from 'node:test';
import { AUDIT_EXPORT_END, AUDIT_MAX_PAGE, connectRedis, type Redis } from '@svc/accounts';
import { gatewayReady, seed, startFixture, type GatewayFixture, type Seeded } from './support.ts';

/** Entries written before the tests: far more than any page or batch, as the attack reached. */
const ENTRIES = 300_000;
/** The rare action's entries, the oldest of the log. */
const RARE = 3;
/** Growth of the process's resident memory the export may cause, whatever the log's size. */
const EXPORT_MEMORY_BOUND = 64 * 1024 * 1024;
/**
 * No Redis command of an export may take this long (SLOWLOG threshold, microseconds). Each reads one
 * batch of 500 entries, about 1 ms; reading the whole log in one command took 4.6 s. The SLOWLOG
 * counts wall time, and on a loaded two-core machine Redis can be descheduled mid-command for tens
 * of milliseconds (62 ms seen), so the bound sits well above that noise and far below a scan.
 */
const SLOW_COMMAND_US = 200_000;

let f: GatewayFixture;
let owner: Seeded;
let personal: string;
let admin: Redis;

before(async () => {
  f = await startFixture();
  owner = await seed(f.accounts, { plan: 'ENTERPRISE' });
  personal = (await f.accounts.keys.createUserKey({ userId: owner.userId })).key;
  admin = connectRedis(f.redis.url, { name: 'test-admin' });
  const entry = (n: number, action: 'key.revoked' | 'signin.failed') => ({
    workspace: owner.workspace,
    actor: owner.email,
    action,
    target: `user:${owner.email}`,
    source: '203.0.113.7',
    requestId: `req-${n}`,
    detail: { n: String(n) },
  });
  for (let n = 0; n < RARE; n++) await f.accounts.audit.record(entry(n, 'key.revoked'));
  // Pipelined: a batch of appends in flight at once on the one connection.
  for (let done = 0; done < ENTRIES; done += 5_000)
    await Promise.all(Array.from({ length: 5_000 }, (_, i) => f.accounts.audit.record(entry(RARE + done + i, 'signin.failed'))));
  // Seeding left hundreds of megabytes of garbage in this process, which the services under test
  // share: collected now, not by a full collection in the middle of a measured request.
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
});
after(async () => {
  admin.disconnect();
  await f.close();
});

const auditUrl = (query: string) => `${f.url}/api/v1/workspaces/${owner.workspace}/audit?${query}`;
const get = (query: string) => fetch(auditUrl(query), { headers: { 'x-api-key': personal } });

test(`the export of ${ENTRIES} entries streams with bounded memory and no Redis command over ${SLOW_COMMAND_US / 1000} ms`, async () => {
  await admin.config('SET', 'slowlog-log-slower-than', String(SLOW_COMMAND_US));
  await admin.slowlog('RESET');
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  let lines = 0;
  let last = '';
  try {
    const res = await get('format=jsonl');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /application\/x-ndjson/);
    // Read as it comes, keeping only the count and the last line.
    const decoder = new TextDecoder();
    let tail = '';
    for await (const chunk of res.body!) {
      const text = tail + decoder.decode(chunk, { stream: true });
      const parts = text.split('\n');
      tail = parts.pop()!;
      lines += parts.length;
      if (parts.length) last = parts.at(-1)!;
    }
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, process.memoryUsage().rss);
  assert.equal(lines, RARE + ENTRIES + 1, 'every entry and the closing line');
  assert.deepEqual(JSON.parse(last), { [AUDIT_EXPORT_END]: true, entries: RARE + ENTRIES });
  const growth = peak - rssBefore;
  assert.ok(growth < EXPORT_MEMORY_BOUND, `resident memory grew ${(growth / 1048576).toFixed(1)} MB during the export`);
  const slow = (await admin.slowlog('GET', 10)) as [number, number, number, string[]][];
  assert.deepEqual(
    slow.map(([, , us, args]) => `${args.slice(0, 2).join(' ')}: ${us} µs`),
    [],
    'no Redis command that long',
  );
});

test(`a filter on a rare action answers at once among ${ENTRIES} entries`, async () => {
  const started = performance.now();
  const res = await get('action=key.revoked');
  const elapsed = performance.now() - started;
  const body = (await res.json()) as { entries: { requestId: string }[]; next: string | null };
  assert.equal(res.status, 200);
  assert.deepEqual(
    body.entries.map((e) => e.requestId),
    ['req-2', 'req-1', 'req-0'],
  );
  assert.equal(body.next, null);
  // A scan reads the whole log (seconds); the index reads three ids. Generous for a loaded machine.
  assert.ok(elapsed < 1_000, `${elapsed.toFixed(0)} ms`);
});

test('bad page parameters are a 400 naming the parameter, never a 500', async () => {
  const cases: [string, string][] = [
    ['cursor=abc', 'cursor'],
    ['cursor=1-2-3', 'cursor'],
    ['cursor=99999999999999999999-0', 'cursor'],
    ['cursor=-', 'cursor'],
    ['action=key.stolen', 'action'],
    ['action=key.revoked&cursor=%2B', 'cursor'],
    ['limit=0', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=2.5', 'limit'],
    [`limit=${AUDIT_MAX_PAGE + 1}`, 'limit'],
    ['format=xml', 'format'],
  ];
  for (const [query, field] of cases) {
    const res = await get(query);
    const body = (await res.json()) as { error: { code: string; field?: string; message: string } };
    assert.equal(res.status, 400, `${query}: ${JSON.stringify(body)}`);
    assert.deepEqual([body.error.code, body.error.field], ['invalid_params', field], query);
  }
  const page = (await (await get('limit=2')).json()) as { entries: unknown[]; next: string };
  assert.equal(page.entries.length, 2);
  assert.equal((await get(`cursor=${page.next}&limit=${AUDIT_MAX_PAGE}`)).status, 200, 'a cursor the log gave is taken');
});

test('Redis stops answering during an export: the body is cut, without its closing line', async () => {
  const res = await get('format=jsonl');
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  await reader.read();
  f.redis.pause();
  try {
    const decoder = new TextDecoder();
    let text = '';
    const ended = await (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return 'ended';
          text = decoder.decode(value, { stream: true }).slice(-200);
        }
      } catch {
        return 'cut';
      }
    })();
    assert.equal(ended, 'cut', 'the connection is broken off, not ended as if complete');
    assert.doesNotMatch(text, new RegExp(`"${AUDIT_EXPORT_END}":true`));
  } finally {
    f.redis.resume();
  }
});

test('Redis paused before the first byte: 503 with Retry-After within the command timeout, never 500', async () => {
  // The test before stalled Redis: the gateway's client reconnects first (docs/operations.md).
  await gatewayReady(f.url);
  assert.equal((await get('limit=1')).status, 200, 'the credential is known (its resolution cached)');
  f.redis.pause();
  try {
    const started = performance.now();
    const res = await get('format=jsonl');
    const elapsed = performance.now() - started;
    assert.equal(res.status, 503, await res.text());
    assert.ok(Number(res.headers.get('retry-after')) >= 1, 'Retry-After');
    assert.ok(elapsed < 1_000, `answered 503 after ${elapsed.toFixed(0)} ms, past the 1 s a stuck Redis is answered within`);
  } finally {
    f.redis.resume();
  }
});
