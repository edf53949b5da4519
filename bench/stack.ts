/**
 * What every benchmark starts from: a private redis-server, the gateway's environment (limits
 * scaled out of the way but still counted, a long cache backstop), the account stores, and an
 * ENTERPRISE workspace with one project; and the helpers that run servers as child processes.
 * BENCH_LIMITER=exact runs the gateways with the exact limiter instead of the shipped leased one
 * (to compare with a checkout from before the leased limiter, which makes a call per turn).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { connectRedis, createAccounts } from '@svc/accounts';
import { loadConfig } from '@svc/config';
import { freePort, startRedis, waitFor } from '@svc/testkit';

const root = resolve(import.meta.dirname, '..');

export async function benchStack(project: string) {
  const redis = await startRedis();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    NODE_ENV: 'test',
    REDIS_URL: redis.url,
    BASE_URL: base,
    AUTH_URL: 'http://127.0.0.1:1',
    RATE_LIMIT_SCALE: '1000000',
    RATE_LIMIT_MODE: process.env['BENCH_LIMITER'] ?? 'leased',
    LOG_LEVEL: 'warn',
    AUTH_CACHE_TTL_MS: '60000',
  };
  const config = loadConfig(env);
  // Each turn's writes batched: seeding 100,000 keys sends their commands in a few large writes.
  const client = connectRedis(redis.url, { batchWrites: true, name: 'bench' });
  // The churn case holds BENCH_KEYS keys in one project, far past a tenant's limit of live keys
  // (docs/management.md "Collection limits"): the bench measures lookups among many keys, and the
  // gateway's reads do not depend on how they were created.
  const accounts = createAccounts(client, {
    pepper: config.keyPepper,
    bcryptCost: 4,
    limits: { keysPerProject: Number(process.env['BENCH_KEYS'] ?? 100_000) + 100 },
  });
  const user = await accounts.users.create({ emailVerified: true, email: `${project}@example.com` });
  await accounts.workspaces.setPlan(user.workspace, 'ENTERPRISE');
  await accounts.workspaces.createProject({ slug: project, workspace: user.workspace });
  return { redis, base, env, config, client, accounts, workspace: user.workspace };
}

/** A node process running `args` from the repository root (stdout discarded, stderr shown). */
export function child(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  const c = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  // Drained, so a chatty child never blocks on a full pipe.
  c.stdout?.resume();
  return c;
}

/** Waits until `url` answers at all (any status). */
export async function waitHttp(url: string): Promise<void> {
  await waitFor(
    async () => {
      await fetch(url);
      return true;
    },
    { timeout: 20_000, interval: 50, message: `${url} to come up` },
  );
}

/** SIGTERM, then the exit (the gateway drains and flushes last-used times first). */
export async function stop(...children: ChildProcess[]): Promise<void> {
  await Promise.all(children.map((c) => new Promise((done) => (c.once('exit', done), c.kill('SIGTERM')))));
}

/** Clock ticks a second of /proc/<pid>/stat's times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * A process's user + system CPU time in seconds (fields 14 and 15 of /proc/<pid>/stat): read around
 * a run, the CPU one request costs, which the machine's load moves far less than requests/s.
 */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/**
 * This machine's speed now, in the same run as the figures it sits beside: the CPU time a bare
 * node:http server (bench/bare-server.ts, a 600-byte answer) spends on one request under 50
 * connections, median of `rounds` runs of `seconds`. Absolute figures (the auth-service's grants
 * per CPU-second against Keycloak's per-vCPU sizing) move with the machine: on this shared host
 * the same bare server has measured 15.8 µs (2026-11-28) and 28.6 µs (2026-12-06).
 */
export async function machineAnchor(seconds = 3, rounds = 3): Promise<number> {
  const port = await freePort();
  const bare = child(['bench/bare-server.ts', '600', String(port)]);
  await waitHttp(`http://127.0.0.1:${port}/`);
  const runs: number[] = [];
  for (let i = 0; i <= rounds; i++) {
    const before = cpuSeconds(bare.pid!);
    const r = await autocannon({
      url: `http://127.0.0.1:${port}/`,
      method: 'POST',
      body: '{}',
      connections: 50,
      duration: i === 0 ? 1 : seconds,
    });
    // The first, short run warms the server up and is not counted.
    if (i > 0) runs.push(((cpuSeconds(bare.pid!) - before) * 1e6) / r.requests.total);
  }
  await stop(bare);
  return runs.sort((a, b) => a - b)[Math.floor(runs.length / 2)]!;
}
