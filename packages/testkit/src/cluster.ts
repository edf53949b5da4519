/**
 * A private Redis Cluster (docs/operations.md "Redis Cluster"): three masters on free loopback
 * ports, each with `replicas` replicas, every node in its own temporary directory, nodes calling
 * a silent peer failed after CLUSTER_NODE_TIMEOUT_MS. stop() kills every node and removes the
 * directories.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { freePort } from './ports.ts';
import { killProcess, launchRedis, probeClient, refuseInUnitSuite } from './redis-process.ts';
import { waitFor } from './wait.ts';

/**
 * cluster-node-timeout: a master silent this long is failed over to its replica (then after
 * 500 ms plus up to 500 ms at random, Redis' election delay). Shorter with replicas, so a
 * failover fits the 3 s the service promises; without replicas a node taken for failed makes
 * the cluster refuse commands, so a loaded machine gets more slack.
 */
const CLUSTER_NODE_TIMEOUT_MS = { withReplicas: 500, withoutReplicas: 1_000 };

const MASTERS = 3;

export interface RedisClusterFixture {
  /** Comma-separated seed URLs, as REDIS_URL takes them with REDIS_CLUSTER=on. */
  url: string;
  ports: number[];
  /** A client of the node on `port`, for the test's own checks (closed by stop()). */
  node(port: number): Redis;
  /** The ports of the masters now, and of each one's replicas. */
  masters(): Promise<{ port: number; replicas: number[] }[]>;
  /** The port of the master serving `key`'s slot now. */
  masterOf(key: string): Promise<number>;
  /** SIGKILLs the node on `port`. */
  kill(port: number): Promise<void>;
  /** Starts a killed node again with its cluster state (it rejoins as a replica of whoever took its slots). */
  restart(port: number): Promise<void>;
  /** CLUSTER FAILOVER on the replica on `port`: a planned promotion in place of its master. */
  failover(replicaPort: number): Promise<void>;
  /** Freezes the node on `port` (SIGSTOP): its connections stay open and nothing answers. */
  pause(port: number): void;
  resume(port: number): void;
  /** Waits until every slot is served and every master has `replicas` replicas online. */
  waitHealthy(replicas?: number): Promise<void>;
  stop(): Promise<void>;
}

/** A private 3-master Redis Cluster, with `replicas` replicas per master; needs redis-server and redis-cli. */
export async function startRedisCluster(options: { replicas?: number } = {}): Promise<RedisClusterFixture> {
  refuseInUnitSuite('startRedisCluster()');
  const replicas = options.replicas ?? 0;
  const base = await mkdtemp(join(tmpdir(), 'svc-cluster-'));
  const ports: number[] = [];
  for (let i = 0; i < MASTERS * (1 + replicas); i++) ports.push(await freePort());
  const children = new Map<number, ChildProcess>();
  const clients = new Map<number, Redis>();
  const client = (port: number) => {
    let c = clients.get(port);
    if (!c) clients.set(port, (c = probeClient(port)));
    return c;
  };
  const stop = async () => {
    for (const c of clients.values()) c.disconnect();
    await Promise.all([...children.values()].map(killProcess));
    await rm(base, { recursive: true, force: true });
  };

  const masters = async () => {
    const live = ports.filter((p) => children.get(p)?.exitCode === null && children.get(p)?.signalCode === null);
    const lines = String(await client(live[0]!).cluster('NODES'))
      .trim()
      .split('\n');
    const byId = new Map<string, number>();
    const parsed = lines.map((l) => l.split(' '));
    for (const f of parsed) byId.set(f[0]!, Number(f[1]!.split(':')[1]!.split('@')[0]));
    return parsed
      .filter((f) => f[2]!.includes('master') && !f[2]!.includes('fail') && f.length > 8)
      .map((f) => ({
        port: byId.get(f[0]!)!,
        replicas: parsed.filter((r) => r[3] === f[0] && !r[2]!.includes('fail')).map((r) => byId.get(r[0]!)!),
      }));
  };

  const waitHealthy = async (count = replicas) => {
    let seen = '';
    await waitFor(
      async () => {
        const live = ports.filter((p) => children.get(p)?.exitCode === null && children.get(p)?.signalCode === null);
        for (const p of live) if (!String(await client(p).cluster('INFO')).includes('cluster_state:ok')) return false;
        const now = await masters();
        seen = JSON.stringify(now);
        if (now.length !== MASTERS) return false;
        for (const m of now) {
          const info = String(await client(m.port).info('replication'));
          if ((info.match(/^slave\d+:.*state=online/gm) ?? []).length < count) return false;
        }
        return true;
      },
      {
        timeout: 20_000,
        interval: 100,
        message: () => `the Redis Cluster to serve every slot with ${count} replica(s) per master online (${seen})`,
      },
    );
  };

  const launch = async (port: number) => {
    const dir = join(base, String(port));
    await mkdir(dir, { recursive: true });
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes'];
    args.push(
      '--cluster-config-file',
      join(dir, 'nodes.conf'),
      '--cluster-node-timeout',
      String(replicas > 0 ? CLUSTER_NODE_TIMEOUT_MS.withReplicas : CLUSTER_NODE_TIMEOUT_MS.withoutReplicas),
    );
    args.push('--save', '', '--appendonly', 'no', '--dir', dir);
    children.set(port, await launchRedis(port, args));
  };

  try {
    for (const port of ports) await launch(port);
    await createCluster(ports, replicas);
    await waitHealthy();
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url: ports
      .slice(0, MASTERS)
      .map((p) => `redis://127.0.0.1:${p}`)
      .join(','),
    ports,
    node: client,
    masters,
    async masterOf(key) {
      const slot = Number(await client(ports[0]!).cluster('KEYSLOT', key));
      const slots = await client(ports[0]!).cluster('SLOTS');
      const range = slots.find(([from, to]) => slot >= from && slot <= to);
      return range![2]![1];
    },
    async kill(port) {
      await killProcess(children.get(port)!);
    },
    restart: launch,
    async failover(replicaPort) {
      await client(replicaPort).cluster('FAILOVER');
    },
    pause: (port) => void children.get(port)!.kill('SIGSTOP'),
    resume: (port) => void children.get(port)!.kill('SIGCONT'),
    waitHealthy,
    stop,
  };
}

async function createCluster(ports: number[], replicas: number): Promise<void> {
  await new Promise<void>((ok, fail) => {
    const create = spawn(
      'redis-cli',
      ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', String(replicas), '--cluster-yes'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    create.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    create.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    create.on('error', (err) => fail(new Error(`redis-cli: ${err.message} (scripts/setup.sh installs redis-tools)`)));
    create.on('exit', (code) => (code === 0 ? ok() : fail(new Error(`redis-cli --cluster create failed: ${out.slice(-500)}`))));
  });
}
