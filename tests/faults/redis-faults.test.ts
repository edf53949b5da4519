/**
 * Redis faults under load (docs/security.md "Errors and outages"): two gateway processes and the
 * auth-service share one Redis, which is paused (SIGSTOP/SIGCONT), then killed and restarted while
 * clients keep calling. Throughout: no 200 for an unknown or revoked credential, no 500, /readyz
 * truthful (503 within a second while Redis does not answer, never a hang), every 503 within
 * REQUEST_STALL_ANSWER_MS (docs/operations.md "When Redis stops answering"); afterwards every
 * service is ready again within 2 s.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { connectRedis, createAccounts, REQUEST_STALL_ANSWER_MS, type Accounts, type Redis } from '@svc/accounts';
import { startAuthService, type RunningAuthService } from '@svc/auth-service/server.ts';
import { loadConfig, type Config } from '@svc/config';
import { createLogger } from '@svc/logger';
import { freePort, startRedis, waitFor, type RedisFixture } from '@svc/testkit';

const ROOT = resolve(import.meta.dirname, '../..');
/** What "ready again" may take after Redis answers again. */
const RECOVERY_MS = 2_000;

let redis: RedisFixture;
let client: Redis;
let accounts: Accounts;
let config: Config;
let auth: RunningAuthService;
const gateways: { url: string; child: ChildProcess }[] = [];
let authUrl = '';

async function startGatewayProcess(port: number, baseUrl: string): Promise<ChildProcess> {
  const child = spawn(resolve(ROOT, 'scripts/node'), ['services/mcp-gateway/src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      REDIS_URL: redis.url,
      AUTH_URL: authUrl,
      BASE_URL: baseUrl,
      PORT: String(port),
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok, { timeout: 20_000, message: `gateway on ${port} ready` });
  return child;
}

interface Seed {
  slug: string;
  valid: string;
  revoked: string;
}

async function seed(): Promise<Seed> {
  const tag = Math.random().toString(36).slice(2, 8);
  const user = await accounts.users.create({
    emailVerified: true,
    email: `faults-${tag}@example.com`,
    password: 'correct horse battery staple',
  });
  const slug = `faults-${tag}`;
  await accounts.workspaces.createProject({ slug, workspace: user.workspace });
  const valid = (await accounts.keys.createProjectKey({ project: slug, workspace: user.workspace, name: 'valid' })).key;
  const revokedKey = await accounts.keys.createProjectKey({ project: slug, workspace: user.workspace, name: 'revoked' });
  await accounts.keys.revoke(revokedKey.id);
  return { slug, valid, revoked: revokedKey.key };
}

before(async () => {
  redis = await startRedis();
  const authPort = await freePort();
  authUrl = `http://127.0.0.1:${authPort}`;
  const ports = [await freePort(), await freePort()];
  config = loadConfig({
    NODE_ENV: 'test',
    REDIS_URL: redis.url,
    AUTH_URL: authUrl,
    BASE_URL: `http://127.0.0.1:${ports[0]}`,
    LOG_LEVEL: 'error',
  });
  auth = await startAuthService({
    config: { ...config, port: authPort },
    logger: createLogger({ service: 'faults', level: 'error', silent: true }),
  });
  for (const port of ports)
    gateways.push({ url: `http://127.0.0.1:${port}`, child: await startGatewayProcess(port, `http://127.0.0.1:${port}`) });
  client = connectRedis(redis.url, { name: 'faults-test' });
  accounts = createAccounts(client, { pepper: config.keyPepper, bcryptCost: 4 });
});

after(async () => {
  for (const g of gateways) g.child.kill('SIGTERM');
  await Promise.all(gateways.map((g) => new Promise((r) => (g.child.exitCode !== null ? r(null) : g.child.once('exit', r)))));
  await auth?.close();
  client?.disconnect();
  await redis?.stop();
});

/** Unknown: a well-formed key that was never issued (its checksum is valid). */
const UNKNOWN = 'svc-0000000000000000000000000000';

interface Load {
  stop(): Promise<void>;
  problems: string[];
  counts: Map<string, number>;
}

/** Eight workers calling both gateways and the auth-service until stopped, checking each answer. */
function load(s: () => Seed): Load {
  const problems: string[] = [];
  const counts = new Map<string, number>();
  let running = true;
  const note = (what: string, status: number, started: number) => {
    const k = `${what} ${status}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
    if (status >= 500 && status !== 503) problems.push(`${what}: ${status}`);
    const ms = performance.now() - started;
    if (status === 503 && ms >= REQUEST_STALL_ANSWER_MS) problems.push(`${what}: 503 after ${Math.round(ms)} ms`);
  };
  const call = async (i: number) => {
    const g = gateways[i % gateways.length]!;
    const seedNow = s();
    const which = (['valid', 'revoked', 'unknown'] as const)[i % 3]!;
    const key = which === 'valid' ? seedNow.valid : which === 'revoked' ? seedNow.revoked : UNKNOWN;
    let started = performance.now();
    const res = await fetch(`${g.url}/mcp/${seedNow.slug}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_help', arguments: {} } }),
      signal: AbortSignal.timeout(10_000),
    });
    await res.text();
    note(`gateway ${which}`, res.status, started);
    if (which !== 'valid' && res.status === 200) problems.push(`gateway answered 200 to a ${which} key`);
    started = performance.now();
    const a = await fetch(`${authUrl}/api/oauth/device/code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: 'svc-mcp' }),
      signal: AbortSignal.timeout(10_000),
    });
    await a.text();
    note('auth device code', a.status, started);
  };
  const workers = Array.from({ length: 8 }, async (_, w) => {
    for (let i = w; running; i += 8) {
      try {
        await call(i);
      } catch (err) {
        problems.push(`no answer: ${(err as Error).message}`);
      }
    }
  });
  return {
    problems,
    counts,
    async stop() {
      running = false;
      await Promise.all(workers);
    },
  };
}

const services = () => [...gateways.map((g) => g.url), authUrl];

/** /readyz of every service: its status, and how long it took (a hang counts as a failure). */
async function readiness(): Promise<{ url: string; status: number; ms: number }[]> {
  return Promise.all(
    services().map(async (url) => {
      const started = performance.now();
      try {
        const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(3_000) });
        await res.text();
        return { url, status: res.status, ms: performance.now() - started };
      } catch {
        return { url, status: 0, ms: performance.now() - started };
      }
    }),
  );
}

async function assertReadinessSays(status: number, when: string): Promise<void> {
  for (const r of await readiness()) {
    assert.equal(r.status, status, `${when}: ${r.url}/readyz answered ${r.status || 'nothing'} in ${Math.round(r.ms)} ms`);
    assert.ok(r.ms < 1_000, `${when}: ${r.url}/readyz took ${Math.round(r.ms)} ms`);
  }
}

async function recoveryMs(): Promise<number> {
  const started = performance.now();
  await waitFor(async () => (await readiness()).every((r) => r.status === 200), {
    timeout: 10_000,
    interval: 50,
    message: 'every service ready again',
  });
  return performance.now() - started;
}

test('Redis paused, then killed and restarted, under load: no 200 for bad keys, no 500, readiness truthful, recovery within 2 s', async () => {
  let current = await seed();
  const traffic = load(() => current);
  try {
    await waitFor(() => (traffic.counts.get('gateway valid 200') ?? 0) > 20, { timeout: 10_000, message: 'load to be served' });
    await assertReadinessSays(200, 'before the faults');

    const answered503 = (service: string) =>
      [...traffic.counts].filter(([k]) => k.startsWith(service) && k.endsWith(' 503')).reduce((n, [, c]) => n + c, 0);
    const [gateway503, auth503] = [answered503('gateway'), answered503('auth')];
    redis.pause();
    try {
      await assertReadinessSays(503, 'Redis paused');
      // Held until callers were answered: `note` checks that each 503 came within REQUEST_STALL_ANSWER_MS.
      await waitFor(() => answered503('gateway') > gateway503 && answered503('auth') > auth503, {
        timeout: 10_000,
        interval: 20,
        message: 'both services to answer 503 while Redis is paused',
      });
    } finally {
      redis.resume();
    }
    const afterPause = await recoveryMs();
    assert.ok(afterPause < RECOVERY_MS, `ready ${Math.round(afterPause)} ms after Redis resumed`);

    await redis.kill();
    await waitFor(async () => (await readiness()).every((r) => r.status === 503), {
      timeout: 2_000,
      interval: 50,
      message: 'readiness to report Redis killed',
    });
    await assertReadinessSays(503, 'Redis killed');
    await redis.restart();
    const afterRestart = await recoveryMs();
    assert.ok(afterRestart < RECOVERY_MS, `ready ${Math.round(afterRestart)} ms after Redis restarted`);
    // The restarted Redis is empty: the keys of before are unknown now, and must be refused.
    await waitFor(async () => client.status === 'ready', { timeout: 5_000, message: 'the test client to reconnect' });
    const before = current;
    current = await seed();
    for (const g of gateways) {
      const res = await fetch(`${g.url}/mcp/${before.slug}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': before.revoked },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_help', arguments: {} } }),
      });
      await res.text();
      assert.notEqual(res.status, 200, `${g.url}: a revoked key of the lost data`);
    }
    await waitFor(() => (traffic.counts.get('gateway valid 200') ?? 0) > 0, { timeout: 5_000, message: 'valid calls served again' });
  } finally {
    await traffic.stop();
  }
  assert.deepEqual(traffic.problems.slice(0, 10), [], [...traffic.counts].map(([k, n]) => `${k}: ${n}`).join(', '));
});
