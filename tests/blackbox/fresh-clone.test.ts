/**
 * A newcomer's first command: the README's first quick-start line, typed as it stands into a copy
 * of this checkout that has never been set up (no node_modules, no .tools), in a shell with an
 * empty HOME and the standard PATH. It must bring up both services and print a key that works,
 * and the demo project must answer the README's search example.
 *
 * The copy gets only what git would give a clone (tracked and untracked-but-not-ignored files), so
 * nothing installed in this checkout helps it. What it can still find on the machine is what the
 * README says it may: Debian's packages (redis-server) and npm. docs/development.md "Toolchain".
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { freePort, GiveUp, outsideLoopBudget, startRedis, waitFor, type RedisFixture } from '@svc/testkit';

const root = resolve(import.meta.dirname, '../..');
const STANDARD_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
let redis: RedisFixture;
let work: string;

before(async () => {
  redis = await startRedis();
  work = mkdtempSync(join(tmpdir(), 'svc-fresh-'));
});
after(async () => {
  await redis.stop();
  rmSync(work, { recursive: true, force: true });
});

/** The first command of the README's quick start, without its comment (as a reader copies it). */
function firstQuickStartLine(): string {
  const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const line = block.split('\n').find((l) => l.trim() !== '');
  assert.ok(line, 'the README has a quick-start command');
  return line.replace(/\s+#.*$/, '').trim();
}

/** A copy of the checkout as a clone would have it. */
function cloneLikeCopy(to: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root })
    .toString()
    .split('\0')
    .filter(Boolean);
  for (const f of files) {
    const from = resolve(root, f);
    try {
      mkdirSync(dirname(join(to, f)), { recursive: true });
      cpSync(from, join(to, f), { preserveTimestamps: true });
    } catch (err) {
      // A file deleted in the working tree but still in the index: a clone would not have it either.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

test("the README's first quick-start line works in a never-set-up copy, empty HOME, standard PATH", { timeout: 600_000 }, async (t) => {
  const line = firstQuickStartLine();
  assert.match(line, /setup\.sh/, `the first line sets up: ${line}`);
  const checkout = join(work, 'svc');
  // Copying the checkout file by file is the test's own preparation, not a request.
  await outsideLoopBudget(() => cloneLikeCopy(checkout));
  mkdirSync(join(work, 'home'));
  const [ap, gp] = [await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: join(work, 'home'),
    PATH: STANDARD_PATH,
    AUTH_URL: `http://127.0.0.1:${ap}`,
    BASE_URL: `http://127.0.0.1:${gp}`,
    REDIS_URL: redis.url,
  };
  for (const name of ['PNPM_HOME', 'npm_config_prefix', 'NODE_OPTIONS', 'npm_execpath', 'npm_node_execpath', 'LOG_FORMAT'])
    delete env[name];

  const shell = spawn('bash', ['-c', line], { cwd: checkout, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  shell.stdout.on('data', (d: Buffer) => (out += d.toString()));
  shell.stderr.on('data', (d: Buffer) => (out += d.toString()));
  t.after(() => {
    if (shell.exitCode === null && shell.pid) process.kill(-shell.pid, 'SIGTERM');
  });

  await waitFor(
    () => {
      if (shell.exitCode !== null) throw new GiveUp(`the quick-start line exited (${shell.exitCode}):\n${out.slice(-2000)}`);
      return /\[svc\] ready: /.test(out);
    },
    { timeout: 540_000, interval: 250, message: () => `the ready line; output so far:\n${out.slice(-2000)}` },
  );

  assert.match(out, /setup: ready: node v24\./, 'setup used Node 24');
  assert.doesNotMatch(out, /pnpm: command not found|command not found/);
  // A readable console: no redis-server banner, no library notices.
  assert.doesNotMatch(out, /oO0OoO0OoO0Oo|Redis is starting|oidc-provider WARNING|NOTICE/);
  const banner = out.indexOf('Demo account');
  assert.ok(banner >= 0 && banner < out.indexOf('[svc] ready: '), 'the demo banner comes with the ready line');

  const viewer = /VIEWER key +(svc-[A-Za-z0-9]{20,})/.exec(out)?.[1];
  assert.ok(viewer, 'the output names a VIEWER key');
  const res = await fetch(`http://127.0.0.1:${gp}/mcp/demo`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-API-Key': viewer },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_search', arguments: { query: 'rotation' } } }),
  });
  assert.equal(res.status, 200);
  const body = (await res.json()) as { result?: { content?: { text: string }[] } };
  assert.match(body.result?.content?.[0]?.text ?? '', /key-rotation\.md/, "the README's search example finds a demo document");

  // Stopped as a person stops it: one Ctrl-C to the foreground group ends everything.
  const exited = new Promise<number | null>((ok) => shell.once('exit', (code) => ok(code)));
  process.kill(-shell.pid!, 'SIGINT');
  assert.equal(await exited, 0);
});
