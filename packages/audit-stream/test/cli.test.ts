/**
 * `svc-admin audit stream` as a real child process (docs/operations.md "Streaming the audit log"):
 * killed with SIGKILL mid-run and started again, it misses nothing and repeats at most one batch
 * per workspace; with --stdout a collector reads JSON lines from its standard output.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { after, afterEach, before, test } from 'node:test';
import { createAccounts, K, type Accounts } from '@svc/accounts';
import { AUDIT_STREAM_BATCH, AUDIT_STREAM_LEASE_MS } from '@svc/audit-stream';
import { outsideLoopBudget, startRedis, waitFor, type RedisFixture } from '@svc/testkit';
import { countsById, startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.ts';

const root = resolve(import.meta.dirname, '../../..');
let redis: RedisFixture;
let accounts: Accounts;
const children: ChildProcess[] = [];

before(async () => {
  redis = await startRedis();
  accounts = createAccounts(redis.client, { pepper: 'p'.repeat(32), bcryptCost: 4 });
});
after(() => redis.stop());
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await redis.flush();
});

async function append(workspace: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await accounts.audit.record({
      workspace,
      actor: 'owner@example.com',
      action: 'member.added',
      target: `user:m${i}@example.com`,
      source: '198.51.100.4',
      requestId: `req-${i}`,
    });
  }
}

async function idsOf(workspace: string): Promise<string[]> {
  return ((await redis.client.xrange(K.auditLog(workspace), '-', '+')) as [string, string[]][]).map(([id]) => `${workspace}/${id}`);
}

function exporter(...args: string[]): ChildProcess {
  const child = spawn(resolve(root, 'scripts/node'), ['packages/svc-admin/src/main.ts', 'audit', 'stream', ...args], {
    cwd: root,
    env: { ...process.env, REDIS_URL: redis.url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return child;
}

test('killed mid-run (SIGKILL) and started again: no entry missing, at most one batch per workspace repeated', async () => {
  await append('ws-a', AUDIT_STREAM_BATCH * 2 + 50);
  await append('ws-b', 40);
  let receiver: OtlpReceiver | null = null;
  receiver = await outsideLoopBudget(() => startOtlpReceiver());
  try {
    const first = exporter('--otlp-endpoint', receiver.url);
    // The second batch is accepted, then the exporter dies before it can move its cursor.
    receiver.answer = (n) => {
      if (n === 1) first.kill('SIGKILL');
      return 'accept';
    };
    await waitFor(() => first.signalCode === 'SIGKILL', { timeout: 30_000, message: 'the exporter to be killed mid-run' });
    const beforeRestart = receiver.accepted.length;
    assert.ok(beforeRestart > 0 && beforeRestart < AUDIT_STREAM_BATCH * 2 + 90, `killed mid-run: ${beforeRestart}`);
    exporter('--otlp-endpoint', receiver.url);
    const want = [...(await idsOf('ws-a')), ...(await idsOf('ws-b'))];
    // The dead exporter's lease ends AUDIT_STREAM_LEASE_MS after its last renewal.
    await waitFor(() => countsById(receiver!.accepted).size === want.length, {
      timeout: AUDIT_STREAM_LEASE_MS + 30_000,
      message: 'every entry after the restart',
    });
    const counts = countsById(receiver.accepted);
    assert.deepEqual([...counts.keys()].sort(), want.sort());
    for (const ws of ['ws-a', 'ws-b']) {
      const repeated = [...counts].filter(([id, n]) => id.startsWith(`${ws}/`) && n > 1).length;
      assert.ok(repeated <= AUDIT_STREAM_BATCH, `${ws}: ${repeated} repeated`);
    }
    assert.ok([...counts.values()].every((n) => n <= 2));
  } finally {
    await receiver.close();
  }
});

test('--stdout: JSON lines a collector reads from the child, each entry once; SIGTERM ends it cleanly', async () => {
  await append('ws-a', 7);
  await append('ws-b', 3);
  const child = exporter('--stdout', '--name', 'lines');
  const lines: Record<string, unknown>[] = [];
  createInterface({ input: child.stdout! }).on('line', (l) => lines.push(JSON.parse(l) as Record<string, unknown>));
  await waitFor(() => lines.length >= 10, { timeout: 20_000, message: 'ten lines on stdout' });
  const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
  child.kill('SIGTERM');
  assert.equal(await exited, 0);
  assert.equal(lines.length, 10);
  assert.deepEqual(lines.map((l) => l['svc.audit.id']).sort(), [...(await idsOf('ws-a')), ...(await idsOf('ws-b'))].sort());
  const one = lines[0]!;
  assert.equal(one['event'], 'svc.audit');
  assert.equal(one['svc.audit.action'], 'member.added');
  assert.equal(one['svc.audit.source'], '198.51.100.4');
  assert.match(String(one['time']), /^\d{4}-\d\d-\d\dT/);
  // Its cursor was kept under its name: stopped cleanly, it gave its lease up.
  assert.equal(await redis.client.exists('svc:audit-export:{lines}:lease'), 0);
  assert.match((await redis.client.hget('svc:audit-export:{lines}:cursors', 'ws-a')) ?? '', /^\d+-\d+ 7$/);
});

test('a bad target is refused at start, naming the flag or variable', async () => {
  const child = exporter('--otlp-endpoint', 'ftp://collector.example/v1/logs');
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((ok) => child.once('exit', (c) => ok(c)));
  assert.equal(code, 1);
  assert.match(stderr, /--otlp-endpoint must be an http or https URL/);
});
