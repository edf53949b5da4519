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
import { freePort, GiveUp, startRedis, waitFor, type RedisFixture } from '@svc/testkit';

const root = resolve(import.meta.dirname, '../..');
const node = resolve(root, 'scripts/node');
let redis: RedisFixture;

before(async () => {
  redis = await startRedis();
});
after(() => redis.stop());

async function waitHealthy(url: string, proc: ChildProcess, log: () => string): Promise<void> {
  await waitFor(
    async () => {
      if (proc.exitCode !== null) throw new GiveUp(`stack exited (${proc.exitCode}): ${log()}`);
      return (await fetch(`${url}/healthz`)).ok;
    },
    { timeout: 30_000, interval: 100, message: () => `${url}/healthz to answer 200: ${log()}` },
  );
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
  try {
    // What a person waits for: the ready line, printed once both services answer.
    await waitFor(
      () => {
        if (proc.exitCode !== null) throw new GiveUp(`stack exited (${proc.exitCode}): ${out}`);
        return out.includes('[svc] ready: ');
      },
      { timeout: 60_000, interval: 50, message: () => `the ready line: ${out}` },
    );
    await waitHealthy(env.AUTH_URL, proc, () => out);
    await waitHealthy(env.BASE_URL, proc, () => out);
  } catch (err) {
    // Detached: its process group would outlive the test.
    if (proc.pid !== undefined && proc.exitCode === null) process.kill(-proc.pid, 'SIGKILL');
    throw err;
  }
  return { proc, env, output: () => out };
}

async function stopped(proc: ChildProcess): Promise<number | null> {
  if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode;
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  proc.kill('SIGTERM');
  return exited;
}

/** Ctrl-C in a terminal: SIGINT to the whole process group; resolves with the exit code. */
async function interrupted(proc: ChildProcess): Promise<number | null> {
  if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode;
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  process.kill(-proc.pid!, 'SIGINT');
  return exited;
}

/** What a stop must not print: a worker still running on a Redis connection already closed. */
const CLOSED_CONNECTION = /turn failed|Stream isn't writeable|Connection is closed/;

test('pnpm start: both services, svc-admin, a tool call, readiness, metrics; SIGTERM stops both', async () => {
  const { proc, env } = await startStackProcess([]);
  try {
    const admin = async (...args: string[]) => {
      const { stdout } = await promisify(execFile)(node, ['packages/svc-admin/src/main.ts', ...args, '--json'], { cwd: root, env });
      return JSON.parse(stdout);
    };
    const u = await admin('user', 'create', '--email', 'ops@example.com');
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

test('pnpm start: Ctrl-C stops both, each worker before its Redis connection closes', async () => {
  const { proc, env, output } = await startStackProcess([]);
  assert.equal(await interrupted(proc), 0);
  const stopping = output().slice(output().indexOf('draining'));
  assert.match(stopping, /draining signal=SIGINT/);
  assert.doesNotMatch(stopping, CLOSED_CONNECTION);
  await assert.rejects(fetch(`${env.BASE_URL}/healthz`), 'the gateway stopped');
});

const VIEWER_KEY = /VIEWER key\s+(svc-[A-Za-z0-9]+)/;

async function searchRotation(baseUrl: string, key: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${baseUrl}/api/v1/projects/demo/tools/svc_search`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-Key': key },
    body: JSON.stringify({ query: 'rotation' }),
  });
  return { status: res.status, text: await res.text() };
}

test('pnpm demo prints a demo account whose keys work; run again, it replaces them', async () => {
  const first = await startStackProcess(['--demo']);
  let firstKey: string;
  try {
    const text = first.output();
    firstKey = VIEWER_KEY.exec(text)?.[1] ?? assert.fail(`no VIEWER key in: ${text}`);
    assert.ok(text.indexOf('Demo account') < text.indexOf('[svc] ready: '), 'the banner comes with the ready line');
    assert.match(text, /personal key\s+svc-user-/);
    assert.match(text, /bot key\s+svc-bot-/);
    const search = await searchRotation(first.env.BASE_URL, firstKey);
    assert.equal(search.status, 200);
    assert.match(search.text, /key-rotation\.md/, "the README's search example finds a demo document");
    // The printed sign-in page exists, and so does the printed svc command.
    const signIn = /sign in at\s+(\S+)/.exec(text)?.[1];
    assert.ok(signIn, `no sign-in URL in: ${text}`);
    const page = await fetch(signIn, { headers: { accept: 'text/html' } });
    assert.equal(page.status, 200, signIn);
    assert.match(await page.text(), /<form[^>]+action="\/signin"/);
    assert.match(text, /pnpm exec svc call svc_search --project demo --arg query=rotation/);
  } finally {
    assert.equal(await stopped(first.proc), 0);
  }

  const second = await startStackProcess(['--demo']);
  try {
    const secondKey = VIEWER_KEY.exec(second.output())?.[1] ?? assert.fail('no VIEWER key the second time');
    assert.notEqual(secondKey, firstKey);
    assert.equal((await searchRotation(second.env.BASE_URL, secondKey)).status, 200);
    assert.equal((await searchRotation(second.env.BASE_URL, firstKey)).status, 401, 'the first run’s key was revoked');
    const docs = await fetch(`${second.env.BASE_URL}/api/v1/projects/demo/tools/svc_search`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-API-Key': secondKey },
      body: JSON.stringify({ query: 'rotation', limit: 50 }),
    });
    const { structuredContent } = (await docs.json()) as { structuredContent: { results: { document: string; heading: string }[] } };
    const hits = structuredContent.results.filter((r) => r.document === 'key-rotation.md' && r.heading === 'Key rotation').length;
    assert.equal(hits, 1, 'the documents were replaced, not added a second time');
  } finally {
    assert.equal(await stopped(second.proc), 0);
  }
});
