/**
 * A private Redis Sentinel topology (docs/operations.md "Redis Sentinel"): one primary, two
 * replicas and three sentinels on free loopback ports, each in its own temporary directory,
 * down-after-milliseconds SENTINEL_DOWN_AFTER_MS. stop() kills every process and removes the
 * directories.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { freePort } from './ports.ts';
import { killProcess, launchRedis, probeClient, refuseInUnitSuite } from './redis-process.ts';
import { waitFor } from './wait.ts';

/** How long a primary must be silent before the sentinels call it down (their down-after-milliseconds). */
const SENTINEL_DOWN_AFTER_MS = 1_000;

const MASTER_NAME = 'svc-test';

export interface RedisSentinelFixture {
  /** The name the sentinels monitor the primary under (REDIS_SENTINEL_MASTER). */
  masterName: string;
  /** host:port of the three sentinels, comma-separated (REDIS_SENTINELS). */
  sentinels: string;
  /** A REDIS_URL to go with them (it gives password, TLS and database; the host is not used). */
  url: string;
  /** The ports of the three data nodes. */
  redisPorts: number[];
  /** The port the sentinels name as the primary now. */
  primaryPort(): Promise<number>;
  /** A client of the data node on `port`, for the test's own checks (closed by stop()). */
  node(port: number): Redis;
  /** SIGKILLs the primary; resolves with its port. */
  killPrimary(): Promise<number>;
  /** Freezes the data node on `port` (SIGSTOP): its connections stay open and it answers nothing, until resume(). */
  pause(port: number): void;
  /** Thaws a paused data node (SIGCONT). */
  resume(port: number): void;
  /** Starts a killed node again, as a replica of the primary the sentinels name now. */
  restart(port: number): Promise<void>;
  /** Waits until the sentinels name a primary other than `port` and it accepts writes; resolves with its port. */
  waitForNewPrimary(port: number, timeoutMs?: number): Promise<number>;
  /** Waits until the primary has `count` replicas with a live link and the sentinels see each other. */
  waitHealthy(count?: number): Promise<void>;
  /** Asks a sentinel for a planned failover (SENTINEL FAILOVER). */
  failover(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedisSentinel(): Promise<RedisSentinelFixture> {
  refuseInUnitSuite('startRedisSentinel()');
  const base = await mkdtemp(join(tmpdir(), 'svc-sentinel-'));
  const redisPorts = [await freePort(), await freePort(), await freePort()];
  const sentinelPorts = [await freePort(), await freePort(), await freePort()];
  const children = new Map<number, ChildProcess>();
  const clients = new Map<number, Redis>();
  const client = (port: number) => {
    let c = clients.get(port);
    if (!c) clients.set(port, (c = probeClient(port)));
    return c;
  };
  const [primary] = redisPorts as [number, number, number];

  const launchData = async (port: number, primaryNow: number) => {
    const dir = join(base, String(port));
    await mkdir(dir, { recursive: true });
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
    children.set(port, await launchRedis(port, port === primaryNow ? args : [...args, '--replicaof', '127.0.0.1', String(primaryNow)]));
  };
  const launchSentinel = async (port: number) => {
    const dir = join(base, `sentinel-${port}`);
    await mkdir(dir, { recursive: true });
    const conf = join(dir, 'sentinel.conf');
    await writeFile(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${primary} 2`,
        `sentinel down-after-milliseconds ${MASTER_NAME} ${SENTINEL_DOWN_AFTER_MS}`,
        // A planned failover may follow another within one test file: 2 x failover-timeout apart.
        `sentinel failover-timeout ${MASTER_NAME} 2000`,
        `sentinel parallel-syncs ${MASTER_NAME} 2`,
        '',
      ].join('\n'),
    );
    children.set(port, await launchRedis(port, [conf, '--sentinel']));
  };

  const primaryPort = async () => {
    const addr = (await client(sentinelPorts[0]!).call('SENTINEL', 'get-master-addr-by-name', MASTER_NAME)) as [string, string];
    return Number(addr[1]);
  };

  const waitHealthy = async (count = 2) => {
    let seen = '';
    let settled = '';
    await waitFor(
      async () => {
        if (seen) settled = seen;
        const port = await primaryPort();
        const info = String(await client(port).info('replication'));
        const online = info.match(/^slave\d+:.*state=online/gm) ?? [];
        seen = `primary ${port}: ${online.length} online replicas`;
        if (!info.includes('role:master') || online.length < count) return false;
        for (const s of sentinelPorts) {
          const others = (await client(s).call('SENTINEL', 'sentinels', MASTER_NAME)) as unknown[];
          const replicas = (await client(s).call('SENTINEL', 'replicas', MASTER_NAME)) as string[][];
          const up = replicas.filter((r) => {
            const flags = r[r.indexOf('flags') + 1] ?? '';
            return flags === 'slave' && r[r.indexOf('master-link-status') + 1] === 'ok';
          });
          const field = (r: string[], name: string) => r[r.indexOf(name) + 1];
          const listed = replicas.map((r) => `${field(r, 'port')} ${field(r, 'flags')} link ${field(r, 'master-link-status')}`);
          seen = `sentinel ${s}: ${others.length} other sentinels; replicas: ${listed.join(', ')}`;
          if (others.length < sentinelPorts.length - 1 || up.length < count) return false;
        }
        return true;
      },
      {
        // After a failover the sentinels reconfigure the surviving replica to follow the new
        // primary, and read each replica's link state from its INFO every 10 s: here the topology
        // was whole again after 4-6 s usually, after more than 20 s in about one run in five.
        timeout: 40_000,
        interval: 100,
        message: () =>
          `the Sentinel topology to have a primary with ${count} live replicas, seen by every sentinel (last seen: ${settled}; now: ${seen})`,
      },
    );
  };

  const stop = async () => {
    for (const c of clients.values()) c.disconnect();
    await Promise.all([...children.values()].map(killProcess));
    await rm(base, { recursive: true, force: true });
  };

  try {
    for (const port of redisPorts) await launchData(port, primary);
    for (const port of sentinelPorts) await launchSentinel(port);
    await waitHealthy();
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    masterName: MASTER_NAME,
    sentinels: sentinelPorts.map((p) => `127.0.0.1:${p}`).join(','),
    url: 'redis://127.0.0.1',
    redisPorts,
    primaryPort,
    node: client,
    async killPrimary() {
      const port = await primaryPort();
      await killProcess(children.get(port)!);
      return port;
    },
    pause(port) {
      children.get(port)?.kill('SIGSTOP');
    },
    resume(port) {
      children.get(port)?.kill('SIGCONT');
    },
    async restart(port) {
      await launchData(port, await primaryPort());
    },
    async waitForNewPrimary(port, timeoutMs = 10_000) {
      return await waitFor(
        async () => {
          const now = await primaryPort();
          if (now === port) return false;
          return String(await client(now).info('replication')).includes('role:master') ? now : false;
        },
        { timeout: timeoutMs, interval: 20, message: `the sentinels to promote a replica in place of port ${port}` },
      );
    },
    waitHealthy,
    async failover() {
      await client(sentinelPorts[0]!).call('SENTINEL', 'failover', MASTER_NAME);
    },
    stop,
  };
}
