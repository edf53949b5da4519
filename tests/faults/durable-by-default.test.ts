/**
 * Durable by default (docs/operations.md "Write durability"): behind Sentinel, with
 * REDIS_WAIT_REPLICAS unset, each account write waits for one replica's confirmation. svc-admin,
 * given only the Sentinel variables, creates a user on a freshly started topology; when no replica
 * can confirm yet (both frozen here, as a syncing replica would leave it), it asks for the
 * confirmation again instead of failing, and succeeds once a replica answers.
 */
import assert from 'node:assert/strict';
import { execFile, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { K } from '@svc/accounts';
import { GiveUp, startRedisSentinel, waitFor, type RedisSentinelFixture } from '@svc/testkit';

const ROOT = resolve(import.meta.dirname, '../..');

let topology: RedisSentinelFixture;
let env: NodeJS.ProcessEnv;

before(async () => {
  topology = await startRedisSentinel();
  // The operator's variables: the sentinels, nothing about replicas.
  env = { ...process.env, REDIS_URL: topology.url, REDIS_SENTINELS: topology.sentinels, REDIS_SENTINEL_MASTER: topology.masterName };
  delete env['REDIS_WAIT_REPLICAS'];
  // The test's own clients of every data node, connected before anything is read through them.
  const answers = async (port: number) => {
    const node = topology.node(port);
    return (await node.ping().catch(() => null)) === 'PONG';
  };
  for (const port of topology.redisPorts) await waitFor(() => answers(port), { message: `a client of the node on port ${port}` });
});
after(() => topology?.stop());

interface Run {
  child: ChildProcess;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function userCreate(email: string): Run {
  let child!: ChildProcess;
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((ok) => {
    child = execFile(
      resolve(ROOT, 'scripts/node'),
      ['packages/svc-admin/src/main.ts', 'user', 'create', '--email', email, '--json'],
      { cwd: ROOT, env },
      (err, stdout, stderr) => ok({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
  return { child, done };
}

/** How many WAIT commands the node on `port` has run since its statistics were reset. */
async function waits(port: number): Promise<number> {
  const stats = String(await topology.node(port).info('commandstats'));
  return Number(/^cmdstat_wait:calls=(\d+)/m.exec(stats)?.[1] ?? 0);
}

/** The data nodes other than the primary. */
async function replicas(): Promise<{ primary: number; replicas: number[] }> {
  const primary = await topology.primaryPort();
  return { primary, replicas: topology.redisPorts.filter((p) => p !== primary) };
}

test('svc-admin user create on a fresh Sentinel topology, default settings: created, and on a replica when it answers', async (t) => {
  const { primary, replicas: ports } = await replicas();
  await topology.node(primary).config('RESETSTAT');
  const started = performance.now();
  const { code, stdout, stderr } = await userCreate('fresh@example.com').done;
  t.diagnostic(`svc-admin user create: ${Math.round(performance.now() - started)} ms`);
  assert.equal(code, 0, `svc-admin failed: ${stdout} ${stderr}`);
  const user = JSON.parse(stdout) as { id: string; email: string };
  assert.equal(user.email, 'fresh@example.com');
  // REDIS_WAIT_REPLICAS defaulted to 1: the writes were followed by WAIT, and a replica held the
  // user before svc-admin answered.
  assert.ok((await waits(primary)) > 0, 'svc-admin asked the replicas to confirm its writes');
  const held = await Promise.all(ports.map((p) => topology.node(p).exists(K.user(user.id))));
  assert.ok(held.includes(1), `a replica holds the user (${held.join(', ')})`);
});

test('no replica can confirm yet: svc-admin asks again, and succeeds once one answers', async (t) => {
  const { primary, replicas: ports } = await replicas();
  await topology.node(primary).config('RESETSTAT');
  for (const p of ports) topology.pause(p);
  t.after(() => ports.forEach((p) => topology.resume(p)));
  const run = userCreate('waited@example.com');
  let exited = false;
  void run.done.then(() => (exited = true));
  // A second WAIT means the first found no replica and svc-admin asked again rather than fail.
  await waitFor(
    async () => {
      if (exited) throw new GiveUp(`svc-admin ended while no replica could confirm: ${JSON.stringify(await run.done)}`);
      return (await waits(primary)) >= 2;
    },
    { timeout: 15_000, interval: 20, message: 'svc-admin to ask the replicas a second time' },
  );
  for (const p of ports) topology.resume(p);
  const { code, stdout, stderr } = await run.done;
  assert.equal(code, 0, `svc-admin failed: ${stdout} ${stderr}`);
  const user = JSON.parse(stdout) as { id: string };
  assert.equal(await topology.node(primary).exists(K.user(user.id)), 1);
  const held = await Promise.all(ports.map((p) => topology.node(p).exists(K.user(user.id))));
  assert.ok(held.includes(1), `a replica holds the user (${held.join(', ')})`);
});
