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
import { refuseInUnitSuite, waitForPing } from './redis-process.ts';

export { eventually, GiveUp, waitFor } from './wait.ts';
export { testClock } from './clock.ts';
export { limiterModeEnv } from './limiter-mode.ts';
export { freePort } from './ports.ts';
export { monitorLoop, outsideLoopBudget } from './loop-monitor.ts';
export { startSmtpInbox, type SmtpInbox } from './smtp.ts';
export { startRedisSentinel, type RedisSentinelFixture } from './sentinel.ts';
export { startRedisCluster, type RedisClusterFixture } from './cluster.ts';
export { histogramSeries, parseExposition, svcMetricSeries, type HistogramSeries } from './metrics.ts';
export { startHttpReceiver, type HttpReceiver, type ReceivedRequest } from './receiver.ts';

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
export { sampleOf } from './schema-sample.ts';
export { SAML_TEST_CERT, samlTestMetadata } from './saml-idp-metadata.ts';
