/** redis-server processes of the fixtures: started, awaited until they answer, killed. */
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { GiveUp, waitFor } from './wait.ts';

/**
 * scripts/test.sh sets SVC_TEST_SUITE=unit for the unit suite: a unit test that reaches for Redis
 * fails here, naming the rule, instead of quietly making the unit suite slow.
 */
export function refuseInUnitSuite(what: string): void {
  if (process.env['SVC_TEST_SUITE'] === 'unit')
    throw new Error(
      `${what} in the unit suite: *.unit.test.ts files are pure logic (no Redis, servers or browser). ` +
        'Name the file *.test.ts to make it an integration test (docs/conventions.md "Tests").',
    );
}

export async function waitForPing(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => {});
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new GiveUp(`redis-server exited (${child.exitCode}): ${log()}`);
        try {
          await probe.connect();
          await probe.ping();
          return true;
        } catch (err) {
          probe.disconnect();
          throw err;
        }
      },
      { timeout: 10_000, interval: 50, message: () => `redis-server to answer on port ${port}: ${log()}` },
    );
  } finally {
    probe.disconnect();
  }
}

/** A redis-server started with `args`, answering PING on `port` when this resolves. */
export async function launchRedis(port: number, args: string[]): Promise<ChildProcess> {
  let output = '';
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.on('error', (err) => {
    output += `\n${err.message} (is redis-server installed? scripts/setup.sh installs it)`;
  });
  child.stdout?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-2000)));
  child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-2000)));
  try {
    await waitForPing(port, child, () => output);
  } catch (err) {
    await killProcess(child);
    throw err;
  }
  return child;
}

/** SIGKILLs a process that is still running and waits for its exit. */
export async function killProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

/** A client for a fixture's own checks, failing at once while its server is away. */
export function probeClient(port: number): Redis {
  const client = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1, enableOfflineQueue: false, retryStrategy: () => 50 });
  client.on('error', () => {});
  return client;
}
