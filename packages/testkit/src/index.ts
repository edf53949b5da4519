/**
 * Test fixtures: a private redis-server on a free port (removed after), free ports, a local SMTP
 * server that keeps what it receives, a place for test output, polling (waitFor, eventually) instead of fixed sleeps, and a clock tests control.
 * No mocks of our own storage: tests run against this real Redis.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './ports.ts';
import { GiveUp, waitFor } from './wait.ts';

export { eventually, GiveUp, waitFor } from './wait.ts';
export { testClock } from './clock.ts';
export { freePort } from './ports.ts';
export { outsideLoopBudget } from './loop-monitor.ts';
export { startSmtpInbox, type SmtpInbox } from './smtp.ts';

/**
 * scripts/test.sh sets SVC_TEST_SUITE=unit for the unit suite: a unit test that reaches for Redis
 * fails here, naming the rule, instead of quietly making the unit suite slow.
 */
function refuseInUnitSuite(what: string): void {
  if (process.env['SVC_TEST_SUITE'] === 'unit')
    throw new Error(
      `${what} in the unit suite: *.unit.test.ts files are pure logic (no Redis, servers or browser). ` +
        'Name the file *.test.ts to make it an integration test (docs/conventions.md "Tests").',
    );
}

export interface RedisFixture {
  url: string;
  port: number;
  /** A client for the test's own checks (closed by stop()). */
  client: Redis;
  flush(): Promise<void>;
  /** Stops the server (the data is gone); restart() brings up an empty one on the same port. */
  kill(): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open and nothing answers, until resume(). */
  pause(): void;
  /** Thaws a paused server (SIGCONT). */
  resume(): void;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

async function waitForPing(port: number, child: ChildProcess, log: () => string): Promise<void> {
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

/** Starts a private redis-server (needs redis-server on PATH: scripts/setup.sh installs it). */
export async function startRedis(options: { dir?: string } = {}): Promise<RedisFixture> {
  refuseInUnitSuite('startRedis()');
  // A given directory is the server's data directory (it loads a dump.rdb found there) and is the
  // caller's to remove.
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'svc-redis-')));
  const removeDir = () => (options.dir ? Promise.resolve() : rm(dir, { recursive: true, force: true }));
  const port = await freePort();
  let child: ChildProcess;
  let output = '';
  const launch = async () => {
    output = '';
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.on('error', (err) => {
      output += `\n${err.message} (is redis-server installed? scripts/setup.sh installs it)`;
    });
    child.stdout?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-2000)));
    child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-2000)));
    await waitForPing(port, child, () => output);
  };
  const kill = async () => {
    // Already gone (exited, killed by a signal) or never started (spawn failed): no 'exit' to await.
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  };
  try {
    await launch();
  } catch (err) {
    // Nothing to stop() later: remove what was made here.
    await kill().catch(() => {});
    await removeDir();
    throw err;
  }
  const client = new Redis({ port, host: '127.0.0.1' });
  client.on('error', () => {});
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    client,
    flush: async () => {
      await client.flushall();
    },
    kill,
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
    restart: launch,
    stop: async () => {
      client.disconnect();
      await kill();
      await removeDir();
    },
  };
}

/** A directory under test-output/ at the workspace root, for screenshots and reports. */
export async function outputDir(...parts: string[]): Promise<string> {
  const dir = resolve(import.meta.dirname, '../../..', 'test-output', ...parts);
  await mkdir(dir, { recursive: true });
  return dir;
}

export interface RedisClusterFixture {
  /** Comma-separated seed URLs, as REDIS_URL takes them with REDIS_CLUSTER=on. */
  url: string;
  ports: number[];
  stop(): Promise<void>;
}

/** A private 3-master Redis Cluster (no replicas) on free ports; needs redis-server and redis-cli. */
export async function startRedisCluster(): Promise<RedisClusterFixture> {
  refuseInUnitSuite('startRedisCluster()');
  const base = await mkdtemp(join(tmpdir(), 'svc-cluster-'));
  const ports = [await freePort(), await freePort(), await freePort()];
  const children: ChildProcess[] = [];
  const stop = async () => {
    const running = children.filter((c) => c.exitCode === null && c.signalCode === null && c.pid !== undefined);
    await Promise.all(running.map((c) => new Promise((r) => (c.once('exit', r), c.kill('SIGKILL')))));
    await rm(base, { recursive: true, force: true });
  };
  try {
    await createCluster(base, ports, children);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: ports.map((p) => `redis://127.0.0.1:${p}`).join(','), ports, stop };
}

async function createCluster(base: string, ports: number[], children: ChildProcess[]): Promise<void> {
  for (const port of ports) {
    const dir = join(base, String(port));
    await mkdir(dir, { recursive: true });
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(dir, 'nodes.conf'),
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
      ],
      { stdio: 'ignore' },
    );
    children.push(child);
    await waitForPing(port, child, () => `cluster node ${port}`);
  }
  await new Promise<void>((ok, fail) => {
    const create = spawn(
      'redis-cli',
      ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    create.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    create.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    create.on('error', (err) => fail(new Error(`redis-cli: ${err.message} (scripts/setup.sh installs redis-tools)`)));
    create.on('exit', (code) => (code === 0 ? ok() : fail(new Error(`redis-cli --cluster create failed: ${out.slice(-500)}`))));
  });
  const probe = new Redis({ port: ports[0], host: '127.0.0.1' });
  probe.on('error', () => {});
  try {
    await waitFor(async () => String(await probe.cluster('INFO')).includes('cluster_state:ok'), {
      timeout: 10_000,
      interval: 50,
      message: `the Redis Cluster on ports ${ports.join(', ')} to report cluster_state:ok`,
    });
  } finally {
    probe.disconnect();
  }
}
