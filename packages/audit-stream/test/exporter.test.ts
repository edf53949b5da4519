/**
 * The audit exporter against a real Redis and a real OTLP/HTTP receiver (docs/audit.md
 * "Streaming"): every entry once, retries through a failing, slow and absent receiver, the body
 * bound, the trimmed-before-export report, and two exporters of one name.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, test } from 'node:test';
import { createAccounts, K, type Accounts } from '@svc/accounts';
import {
  AUDIT_STREAM_BATCH,
  AUDIT_STREAM_MAX_BODY,
  createExporter,
  exporterStore,
  otlpSink,
  type Exporter,
  type ExporterTiming,
} from '@svc/audit-stream';
import { outsideLoopBudget, startRedis, waitFor, type RedisFixture } from '@svc/testkit';
import { countsById, startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.ts';

let redis: RedisFixture;
let accounts: Accounts;
let receiver: OtlpReceiver | null = null;
const exporters: Exporter[] = [];
const quiet = { info: () => undefined, warn: () => undefined };
const FAST: Partial<ExporterTiming> = { idleMs: 20, discoverMs: 0, leaseMs: 1_000, backoffMinMs: 20, backoffMaxMs: 200 };

before(async () => {
  redis = await startRedis();
  accounts = createAccounts(redis.client, { pepper: 'p'.repeat(32), bcryptCost: 4 });
});
after(() => redis.stop());
beforeEach(() => redis.flush());
afterEach(async () => {
  await Promise.all(exporters.splice(0).map((e) => e.stop()));
  await receiver?.close();
  receiver = null;
});

async function append(workspace: string, n: number, detail: Record<string, string> = {}): Promise<void> {
  for (let i = 0; i < n; i++) {
    await accounts.audit.record({
      workspace,
      actor: 'owner@example.com',
      action: 'key.created',
      target: `key:k${i} (svc-ab12, "n${i}")`,
      source: '203.0.113.7',
      requestId: `req-${workspace}-${i}`,
      detail: { level: 'EDITOR', ...detail },
    });
  }
}

/** The stream ids of a workspace's log. */
async function streamIds(workspace: string): Promise<string[]> {
  return ((await redis.client.xrange(K.auditLog(workspace), '-', '+')) as [string, string[]][]).map(([id]) => id);
}

/** The svc.audit.id of each entry of a workspace's log. */
async function idsOf(workspace: string): Promise<string[]> {
  return (await streamIds(workspace)).map((id) => `${workspace}/${id}`);
}

function start(name = 'main', timing: Partial<ExporterTiming> = FAST, timeoutMs = 2_000): Exporter {
  const e = createExporter({
    redis: redis.client,
    name,
    sink: otlpSink({ endpoint: new URL(receiver!.url), headers: { authorization: 'Bearer collector-token' }, timeoutMs }),
    log: quiet,
    timing,
  });
  exporters.push(e);
  void e.run();
  return e;
}

test('every entry of several workspaces arrives once, as an OTLP log record with its attributes', async () => {
  await append('ws-a', AUDIT_STREAM_BATCH + 120);
  await append('ws-b', 3);
  await append('ws-c', 1);
  receiver = await outsideLoopBudget(() => startOtlpReceiver());
  start();
  const want = [...(await idsOf('ws-a')), ...(await idsOf('ws-b')), ...(await idsOf('ws-c'))];
  await waitFor(() => receiver!.accepted.length >= want.length, { timeout: 20_000, message: 'every entry to arrive' });
  const counts = countsById(receiver.accepted);
  assert.deepEqual([...counts.keys()].sort(), [...want].sort());
  assert.ok(
    [...counts.values()].every((n) => n === 1),
    'each entry once',
  );
  // One XRANGE per batch: no request holds more than AUDIT_STREAM_BATCH records.
  assert.ok(receiver.requests.every((r) => r.records <= AUDIT_STREAM_BATCH));
  assert.equal(receiver.requests.filter((r) => r.records === AUDIT_STREAM_BATCH).length, 1);
  const b = receiver.accepted.find((r) => r.attributes['svc.workspace'] === 'ws-b')!;
  assert.equal(b.eventName, 'svc.audit');
  assert.equal(b.body, 'key.created');
  assert.deepEqual(Object.keys(b.attributes).sort(), [
    'svc.audit.action',
    'svc.audit.actor',
    'svc.audit.agent',
    'svc.audit.chain',
    'svc.audit.detail',
    'svc.audit.hash',
    'svc.audit.id',
    'svc.audit.prev',
    'svc.audit.principal',
    'svc.audit.request_id',
    'svc.audit.seq',
    'svc.audit.source',
    'svc.audit.target',
    'svc.workspace',
  ]);
  assert.equal(b.attributes['svc.audit.actor'], 'owner@example.com');
  // Who acted through what, and the entry's link of its workspace's chain (docs/audit.md "Chain").
  assert.deepEqual(b.attributes['svc.audit.principal'], { type: 'user', id: '', label: 'owner@example.com' });
  assert.equal((b.attributes['svc.audit.agent'] as Record<string, string>)['type'], 'unknown');
  assert.equal(b.attributes['svc.audit.chain'], '[]');
  assert.match(String(b.attributes['svc.audit.hash']), /^[0-9a-f]{64}$/);
  assert.equal(b.attributes['svc.audit.source'], '203.0.113.7');
  assert.deepEqual(b.attributes['svc.audit.detail'], { level: 'EDITOR' });
  assert.match(b.timeUnixNano, /^\d{19}$/);
  // The cursor of each workspace is its last entry, with that entry's ordinal (moved just after
  // the receiver's answer, so it may land a moment after the records did).
  const last = { id: (await streamIds('ws-a')).at(-1), ordinal: AUDIT_STREAM_BATCH + 120 };
  const cursorOfA = async () => JSON.stringify((await exporterStore(redis.client, 'main').cursors())['ws-a']);
  await waitFor(async () => (await cursorOfA()) === JSON.stringify(last), { timeout: 5_000, message: "ws-a's cursor at its last entry" });
  // New entries and new workspaces after the start are found too.
  await append('ws-b', 2);
  await append('ws-new', 2);
  await waitFor(() => receiver!.accepted.length === want.length + 4, { timeout: 10_000, message: 'the new entries' });
});

test('a receiver answering 500, then too slowly, then not at all loses nothing: the batch is retried', async () => {
  await append('ws-a', 5);
  receiver = await outsideLoopBudget(() => startOtlpReceiver());
  const port = Number(new URL(receiver.url).port);
  receiver.answer = (n) => (n < 2 ? 500 : n < 3 ? 'hang' : 'accept');
  start('main', FAST, 300);
  // The 500s, then the request held past the timeout.
  await waitFor(() => receiver!.requests.length >= 3 && receiver!.accepted.length === 0, {
    timeout: 10_000,
    message: 'two 500s and a hang',
  });
  // Down: the receiver is gone while more entries come.
  await receiver.close();
  await append('ws-a', 3);
  receiver = await outsideLoopBudget(() => startOtlpReceiver(port));
  await waitFor(() => receiver!.accepted.length >= 8, { timeout: 15_000, message: 'every entry once the receiver is back' });
  const counts = countsById(receiver.accepted);
  assert.deepEqual([...counts.keys()].sort(), (await idsOf('ws-a')).sort());
  assert.ok([...counts.values()].every((n) => n === 1));
});

test('a batch is cut before it passes AUDIT_STREAM_MAX_BODY', async () => {
  // Entries of about 4 KB: AUDIT_STREAM_BATCH of them would be some 2 MB.
  await append('ws-big', AUDIT_STREAM_BATCH, { note: 'x'.repeat(4_000) });
  receiver = await outsideLoopBudget(() => startOtlpReceiver());
  start();
  await waitFor(() => receiver!.accepted.length >= AUDIT_STREAM_BATCH, { timeout: 20_000, message: 'the large entries' });
  assert.ok(receiver.requests.length >= 2, `cut into several requests: ${receiver.requests.length}`);
  assert.ok(
    receiver.requests.every((r) => r.bytes <= AUDIT_STREAM_MAX_BODY),
    `every body within ${AUDIT_STREAM_MAX_BODY}: ${receiver.requests.map((r) => r.bytes).join(', ')}`,
  );
  assert.equal(countsById(receiver.accepted).size, AUDIT_STREAM_BATCH);
});

test('entries trimmed before they were exported are reported once, with how many and which range', async () => {
  await append('ws-a', 4);
  receiver = await outsideLoopBudget(() => startOtlpReceiver());
  const e = start();
  await waitFor(() => receiver!.accepted.length === 4, { message: 'the first entries' });
  await e.stop();
  const exported = (await streamIds('ws-a')).at(-1)!;
  await append('ws-a', 250);
  // Retention trims the oldest while no exporter runs: exactly (not `~`) to the last 10.
  await redis.client.xtrim(K.auditLog('ws-a'), 'MAXLEN', 10);
  const kept = await streamIds('ws-a');
  start();
  await waitFor(() => receiver!.accepted.length === 4 + 1 + 10, { timeout: 10_000, message: 'the gap report and the kept entries' });
  const gaps = receiver.accepted.filter((r) => r.eventName === 'svc.audit.gap');
  assert.equal(gaps.length, 1);
  assert.equal(gaps[0]!.severityText, 'WARN');
  assert.deepEqual(
    { ...gaps[0]!.attributes },
    {
      'svc.audit.id': `ws-a/gap:${exported}..${kept[0]}`,
      'svc.workspace': 'ws-a',
      'svc.audit.gap.after': exported,
      'svc.audit.gap.before': kept[0],
      'svc.audit.gap.count': 240,
    },
  );
  assert.deepEqual(
    receiver.accepted.slice(5).map((r) => r.attributes['svc.audit.id']),
    kept.map((id) => `ws-a/${id}`),
  );
});

test('two exporters of one name: one exports, the other takes over when it stops, nothing repeats beyond one batch', async () => {
  await append('ws-a', 30);
  await append('ws-b', 30);
  receiver = await outsideLoopBudget(() => startOtlpReceiver());
  const first = start('shared');
  const second = start('shared');
  await waitFor(() => receiver!.accepted.length >= 60, { timeout: 10_000, message: 'both logs' });
  await first.stop();
  await append('ws-a', 10);
  await waitFor(() => receiver!.accepted.length >= 70, { timeout: 10_000, message: 'the second exporter to take over' });
  await second.stop();
  const counts = countsById(receiver.accepted);
  assert.deepEqual([...counts.keys()].sort(), [...(await idsOf('ws-a')), ...(await idsOf('ws-b'))].sort());
  const repeated = [...counts.values()].filter((n) => n > 1).length;
  assert.ok(repeated <= 2 * AUDIT_STREAM_BATCH, `repeats within one batch per workspace: ${repeated}`);
  // Both healthy, one lease: nothing at all repeated.
  assert.equal(repeated, 0);
});
