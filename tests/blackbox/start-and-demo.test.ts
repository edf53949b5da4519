/**
 * Black-box: the stack as `pnpm start` / `pnpm demo` run it (scripts/start.ts), driven over HTTP
 * and through svc-admin as an operator and a client would. Both services come up, answer, and stop
 * together on SIGTERM.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { freePort, startRedis, type RedisFixture } from '@svc/testkit';

const root = resolve(import.meta.dirname, '../..');
const node = resolve(root, 'scripts/node');
let redis: RedisFixture;

before(async () => {
  redis = await startRedis();
});
after(() => redis.stop());

async function waitHealthy(url: string, proc: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) assert.fail(`stack exited: ${log()}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.fail(`${url} not healthy: ${log()}`);
}

async function startStackProcess(args: string[]) {
  const [ap, gp] = [await freePort(), await freePort()];
  const env = {
    ...process.env,
    REDIS_URL: redis.url,
    AUTH_URL: `http://127.0.0.1:${ap}`,
    BASE_URL: `http://127.0.0.1:${gp}`,
    NODE_ENV: 'development',
  };
  const proc = spawn(node, ['scripts/start.ts', ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  await waitHealthy(env.AUTH_URL, proc, () => out);
  await waitHealthy(env.BASE_URL, proc, () => out);
  return { proc, env, output: () => out };
}

async function stopped(proc: ChildProcess): Promise<number | null> {
  proc.kill('SIGTERM');
  return new Promise((r) => proc.once('exit', (code) => r(code)));
}

test('pnpm start: both services, svc-admin, a tool call, readiness, metrics; SIGTERM stops both', async () => {
  const { proc, env } = await startStackProcess([]);
  try {
    const admin = async (...args: string[]) => {
      const { stdout } = await promisify(execFile)(node, ['packages/svc-admin/src/main.ts', ...args, '--json'], { cwd: root, env });
      return JSON.parse(stdout);
    };
    const u = await admin('user', 'create', '--email', 'ops@example.com', '--password', 'correct horse battery staple');
    await admin('project', 'create', '--slug', 'bb', '--workspace', u.workspace);
    const k = await admin('key', 'create', '--project', 'bb', '--level', 'VIEWER', '--name', 'bb');
    const res = await fetch(`${env.BASE_URL}/mcp/bb`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-API-Key': k.key },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_help', arguments: {} } }),
    });
    assert.equal(res.status, 200);
    for (const base of [env.AUTH_URL, env.BASE_URL]) {
      assert.equal((await fetch(`${base}/readyz`)).status, 200, `${base}/readyz`);
      assert.match(await (await fetch(`${base}/metrics`)).text(), /process_cpu|nodejs_/, `${base}/metrics`);
    }
  } finally {
    assert.equal(await stopped(proc), 0);
  }
  await assert.rejects(fetch(`${env.BASE_URL}/healthz`), 'the gateway stopped');
  await assert.rejects(fetch(`${env.AUTH_URL}/healthz`), 'the auth-service stopped');
});

test('pnpm demo prints a demo account whose keys work', async () => {
  const { proc, env, output } = await startStackProcess(['--demo']);
  try {
    const text = output();
    const viewer = /VIEWER key\s+(svc-\S+)/.exec(text)?.[1];
    assert.ok(viewer, `no VIEWER key in: ${text}`);
    assert.match(text, /personal key\s+svc-user-/);
    assert.match(text, /bot key\s+svc-bot-/);
    const res = await fetch(`${env.BASE_URL}/api/v1/projects/demo/tools/svc_help`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-API-Key': viewer },
      body: '{}',
    });
    assert.equal(res.status, 200);
    // The printed sign-in page exists, and so does the printed svc command.
    const signIn = /sign in at\s+(\S+)/.exec(text)?.[1];
    assert.ok(signIn, `no sign-in URL in: ${text}`);
    const page = await fetch(signIn, { headers: { accept: 'text/html' } });
    assert.equal(page.status, 200, signIn);
    assert.match(await page.text(), /<form[^>]+action="\/signin"/);
    assert.match(text, /pnpm exec svc call svc_help --project demo/);
  } finally {
    await stopped(proc);
  }
});
