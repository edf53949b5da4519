/**
 * Redis Cluster with replicas (docs/operations.md "Redis Cluster"): three masters with a replica
 * each, the auth-service and two gateways with REDIS_CLUSTER=on and REDIS_WAIT_REPLICAS=1. The key,
 * limit, usage, audit and svc-admin paths work across slots; a replica promoted under load
 * (CLUSTER FAILOVER) loses no acknowledged write; a master killed under load: calls succeed again,
 * and the last failure ends, within FAILOVER_RECOVERY_MS, never a 500, never a 200 for a revoked key, limits keep counting.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { connectRedis, K, type Redis } from '@svc/accounts';
import { startRedisCluster, waitFor, type RedisClusterFixture } from '@svc/testkit';
import {
  callGateway,
  lastFailureAfter,
  lostWrites,
  onceReplicated,
  recoveredAfter,
  seed,
  startFailoverStack,
  startLoad,
  startWriter,
  type FailoverStack,
} from '../support/failover.ts';

/** What the service promises after a master crash (docs/operations.md "Redis Cluster"). */
const FAILOVER_RECOVERY_MS = 3_000;
/**
 * How long the load goes on after a master crash, every failure in it checked against
 * FAILOVER_RECOVERY_MS: past the gateways' next write of API keys' last-used times (every 5 s),
 * the first write after the promotion to the master that has no replica yet.
 */
const WATCHED_AFTER_CRASH_MS = 8_000;
/** Revocation reaches every gateway within this (docs/contract.md "Credentials"). */
const REVOCATION_MS = 1_000;

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

let cluster: RedisClusterFixture;
let client: Redis;
let stack: FailoverStack;
let env: Record<string, string>;

before(async () => {
  cluster = await startRedisCluster({ replicas: 1 });
  env = { REDIS_URL: cluster.url, REDIS_CLUSTER: 'on', REDIS_WAIT_REPLICAS: process.env['SVC_WAIT_REPLICAS'] ?? '1' };
  client = connectRedis(cluster.url, { cluster: true, name: 'cluster-failover-test' });
  stack = await startFailoverStack(env, client);
});

after(async () => {
  await stack?.close();
  client?.disconnect();
  await cluster?.stop();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- svc-admin's JSON output: its shape is what the assertions check
async function admin(...args: string[]): Promise<any> {
  const { stdout } = await run(resolve(ROOT, 'scripts/node'), ['packages/svc-admin/src/main.ts', ...args, '--json'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
  return JSON.parse(stdout) as unknown;
}

test('keys, limits, usage, audit and svc-admin work across the slots of a cluster with replicas', async () => {
  const [gw1, gw2] = stack.gateways as [string, string];
  const seeds = [await seed(stack.accounts), await seed(stack.accounts), await seed(stack.accounts)];
  for (const s of seeds) {
    const first = await callGateway(gw1, s.slug, s.valid);
    assert.equal(first.status, 200);
    // A tool call: counted against the limit and in the month's usage.
    const second = await callGateway(gw2, s.slug, s.valid, 'tools/call', { name: 'svc_search', arguments: { query: 'x' } });
    const body = (await second.json()) as { result?: unknown };
    assert.equal(second.status, 200);
    assert.ok(body.result, JSON.stringify(body));
    const third = await callGateway(gw2, s.slug, s.valid);
    assert.equal(Number(third.headers.get('x-ratelimit-remaining')), Number(first.headers.get('x-ratelimit-remaining')) - 2);
    assert.equal((await callGateway(gw1, s.slug, s.revoked)).status, 401);
    await stack.accounts.audit.record({
      workspace: s.workspace,
      actor: 'service:test',
      action: 'key.created',
      target: 't',
      source: 'test',
      requestId: 'r',
    });
    assert.ok((await client.xlen(K.auditLog(s.workspace))) >= 1);
  }
  const s = seeds[1]!;
  const listed = await admin('key', 'list', '--project', s.slug);
  assert.ok(JSON.stringify(listed).includes(s.validId), 'svc-admin lists the key');
  await admin('key', 'revoke', '--id', s.validId);
  for (const url of stack.gateways)
    await waitFor(async () => (await callGateway(url, s.slug, s.valid)).status === 401, {
      timeout: REVOCATION_MS,
      message: `svc-admin's revocation to reach ${url}`,
    });
});

test('a replica promoted under load (CLUSTER FAILOVER) loses no acknowledged write', async (t) => {
  const s = await seed(stack.accounts);
  const master = await cluster.masterOf(K.auditLog(s.workspace));
  const replica = (await cluster.masters()).find((m) => m.port === master)!.replicas[0]!;
  const load = startLoad(stack.gateways, s, 2);
  const writer = startWriter(stack.accounts, client, s);
  t.after(() => Promise.all([writer.stop(), load.stop()]));
  await waitFor(() => writer.written.keys.length > 20, { message: 'writes to be under way' });
  const t0 = performance.now();
  await cluster.failover(replica);
  await waitFor(async () => (await cluster.masterOf(K.auditLog(s.workspace))) === replica, {
    timeout: 10_000,
    message: 'the replica to be promoted',
  });
  const promoted = performance.now() - t0;
  const mark = writer.written.keys.length;
  await waitFor(() => writer.written.keys.length > mark + 20, {
    timeout: 30_000,
    message: () => `writes to go on after the failover (${writer.written.failed} refused, the last: ${writer.written.lastError})`,
  });
  const written = await writer.stop();
  await load.stop();
  const lost = await lostWrites(stack.accounts, client, s, written);
  t.diagnostic(
    `CLUSTER FAILOVER: promoted after ${Math.round(promoted)} ms; longest pause between acknowledged writes ${Math.round(written.longestGap)} ms; ` +
      `${written.keys.length} keys, ${written.audit} audit entries, ${written.grants.length} grants, ${written.users.length} accounts acknowledged, ` +
      `${written.failed} writes refused; lost: ${lost.length}`,
  );
  assert.deepEqual(load.problems, []);
  assert.deepEqual(lost, [], 'every acknowledged write is on the promoted replica');
  await cluster.waitHealthy();
});

test('a master killed under load: calls succeed again within 3 s, no 500, no revoked key let in, limits carry on', async (t) => {
  const s = await seed(stack.accounts);
  const later = await seed(stack.accounts);
  const counted = await seed(stack.accounts);
  const [gw1, gw2] = stack.gateways as [string, string];
  for (let i = 0; i < 3; i++) assert.equal((await callGateway(gw1, counted.slug, counted.valid)).status, 200);
  const before = Number((await callGateway(gw2, counted.slug, counted.valid)).headers.get('x-ratelimit-remaining'));

  // The master of the load's workspace slot (its rate-limit counters): every call meets its loss.
  const victim = await cluster.masterOf(K.auditLog(s.workspace));
  const load = startLoad(stack.gateways, s);
  t.after(() => load.stop());
  await waitFor(() => load.answers.filter((a) => a.status === 200).length > 20, { message: 'load to be under way' });
  const t0 = performance.now();
  await cluster.kill(victim);
  const recovered = await recoveredAfter(load, t0, stack.gateways.length);
  // Recovered means recovered: the load goes on a second past the promise, every failure checked.
  await waitFor(() => load.answers.some((a) => a.sentAt > t0 + WATCHED_AFTER_CRASH_MS), { timeout: 15_000 });
  await load.stop();
  // The killed node comes back as a replica; then writes (REDIS_WAIT_REPLICAS=1) go on.
  await cluster.restart(victim);
  await cluster.waitHealthy();

  t.diagnostic(
    `master killed: calls succeed again after ${Math.round(recovered)} ms, the last failure ends ${Math.round(lastFailureAfter(load, t0))} ms after the crash; ${load.answers.filter((a) => a.status === 503).length} answers 503 of ${load.answers.length}`,
  );
  assert.deepEqual(load.problems, []);
  assert.ok(recovered <= FAILOVER_RECOVERY_MS, `calls succeeded again only after ${Math.round(recovered)} ms`);
  const lastFailure = lastFailureAfter(load, t0);
  assert.ok(lastFailure <= FAILOVER_RECOVERY_MS, `a call failed ${Math.round(lastFailure)} ms after the crash`);
  const res = await callGateway(gw1, counted.slug, counted.valid);
  assert.equal(Number(res.headers.get('x-ratelimit-remaining')), before - 1);

  // Revocation is idempotent; its reach is timed from the write the replicas confirmed.
  const { startedAt: start } = await onceReplicated(() => stack.accounts.keys.revoke(later.validId));
  for (const url of stack.gateways)
    await waitFor(async () => (await callGateway(url, later.slug, later.valid)).status === 401, {
      timeout: REVOCATION_MS,
      interval: 20,
      message: `the revocation to reach ${url} within ${REVOCATION_MS} ms`,
    });
  t.diagnostic(`revocation after the failover reached both gateways in ${Math.round(performance.now() - start)} ms`);
});
