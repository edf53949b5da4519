/**
 * `pnpm start` / `pnpm demo`: both services in the foreground, stopped together on Ctrl-C or
 * SIGTERM. Without REDIS_URL and with nothing on 127.0.0.1:6379 it starts a private redis-server
 * (data and log under .data/redis). `--demo` first creates or refreshes the demo account
 * (scripts/demo.ts). The banner is printed once both services answer /healthz.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { connectRedis, createAccounts, waitReady } from '@svc/accounts';
import { loadConfig, type Config } from '@svc/config';
import { createMailer } from '@svc/mail';
import { demoBanner, seedDemo, type DemoAccount } from './demo.ts';

const root = resolve(import.meta.dirname, '..');
const demo = process.argv.includes('--demo');
const children: ChildProcess[] = [];
/** The private redis-server, when this script started one: stopped after the services. */
let privateRedis: ChildProcess | null = null;
let stopping = false;

function say(line: string): void {
  process.stdout.write(`[svc] ${line}\n`);
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const s = connect({ port, host: '127.0.0.1' });
    s.once('connect', () => (s.destroy(), ok(true)));
    s.once('error', () => ok(false));
  });
}

function run(
  name: string,
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  output: 'inherit' | 'ignore',
  options: { detached?: boolean } = {},
): ChildProcess {
  const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', output, output], detached: options.detached ?? false });
  child.on('error', (err) => {
    say(`${name} could not start: ${err.message}`);
    void stop(1);
  });
  child.on('exit', (code, signal) => {
    if (stopping) return;
    // Ctrl-C reaches the whole process group at once, so a child may end before our own handler
    // runs: an end by that signal, or a clean exit, is a stop, not a failure.
    if (signal === 'SIGINT' || signal === 'SIGTERM' || code === 0) return void stop(0);
    say(`${name} exited (${signal ?? code}); stopping everything`);
    void stop(code ?? 1);
  });
  children.push(child);
  return child;
}

/** Started (a child that could not be spawned has no pid and never exits) and not yet exited. */
const running = (c: ChildProcess) => c.pid !== undefined && c.exitCode === null && c.signalCode === null;

/** SIGTERM to each of `list` still running; resolves once all have exited. */
async function terminate(list: ChildProcess[]): Promise<void> {
  const left = list.filter(running);
  const exited = left.map((c) => new Promise((r) => c.once('exit', r)));
  for (const c of left) c.kill('SIGTERM');
  await Promise.all(exited);
}

async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  setTimeout(() => {
    for (const c of children) if (running(c)) c.kill('SIGKILL');
    process.exit(code);
  }, 8_000).unref();
  // The services first, Redis last: a service drains, stops its workers (the webhook delivery
  // worker among them) and only then closes its Redis connections; a Redis gone before that makes
  // every turn in between fail (docs/operations.md "Rolling restarts" for the drain).
  await terminate(children.filter((c) => c !== privateRedis));
  if (privateRedis) await terminate([privateRedis]);
  process.exit(code);
}

/** Where a service listens on this machine: PORT, else its public URL's port. */
function localHealthUrl(publicUrl: string, portOverride: number | null): string {
  const u = new URL(publicUrl);
  const port = portOverride ?? (u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80);
  return `http://127.0.0.1:${port}/healthz`;
}

/** Resolves once every URL answers 200, polling; rejects after `ms`. */
async function answering(urls: string[], ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (const url of urls) {
    for (;;) {
      if (stopping) return;
      const ok = await fetch(url, { signal: AbortSignal.timeout(1_000) }).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`${url} did not answer within ${ms / 1000} s`);
      await delay(100);
    }
  }
}

function startPrivateRedis(env: NodeJS.ProcessEnv): void {
  const dir = resolve(root, '.data/redis');
  mkdirSync(dir, { recursive: true });
  say('no REDIS_URL and nothing on 6379: starting a private redis-server (data and log in .data/redis)');
  const args = ['--port', '6379', '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', ''];
  // In its own process group: Ctrl-C signals the terminal's foreground group, which would stop
  // Redis at the same moment as the services it must outlive; stop() ends it after them.
  const logArgs = ['--logfile', resolve(dir, 'redis.log'), '--loglevel', 'warning'];
  privateRedis = run('redis-server', 'redis-server', [...args, ...logArgs], env, 'ignore', { detached: true });
  privateRedis.on('error', () =>
    say('redis-server is not installed: run scripts/setup.sh, or apt-get install redis-server, or set REDIS_URL'),
  );
}

async function prepare(config: Config): Promise<DemoAccount | null> {
  const redis = connectRedis(config.redisUrl, { cluster: config.redisCluster, sentinel: config.redisSentinel, name: 'svc-start' });
  try {
    await waitReady(redis, 15_000);
    return demo ? await seedDemo(createAccounts(redis, { pepper: config.keyPepper }), redis, config) : null;
  } finally {
    redis.disconnect();
  }
}

async function main(): Promise<void> {
  // SIGHUP too (the terminal closed): the private Redis, in its own group, does not get it.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(0));
  // The services log one readable line per event here; in production they log JSON (LOG_FORMAT).
  const env: NodeJS.ProcessEnv = { LOG_FORMAT: 'text', ...process.env };
  if (!env['REDIS_URL'] && !(await portOpen(6379))) startPrivateRedis(env);

  let config: Config;
  try {
    config = loadConfig(env);
  } catch (err) {
    say(err instanceof Error ? err.message : String(err));
    process.exit(2);
  }
  let account: DemoAccount | null;
  try {
    account = await prepare(config);
  } catch (err) {
    say(/not reachable/.test(String(err)) ? `Redis at ${config.redisUrl} is not reachable` : `could not prepare: ${String(err)}`);
    return stop(1);
  }

  const node = process.execPath;
  run('auth-service', node, ['services/auth-service/src/main.ts'], env, 'inherit');
  run('mcp-gateway', node, ['services/mcp-gateway/src/main.ts'], env, 'inherit');
  try {
    await answering([localHealthUrl(config.authUrl, config.port), localHealthUrl(config.baseUrl, config.port)], 60_000);
  } catch (err) {
    say(String(err instanceof Error ? err.message : err));
    return stop(1);
  }
  if (stopping) return;
  if (account) for (const line of demoBanner(account, config)) say(line);
  say(createMailer(config.email).describe);
  say(`ready: auth-service on ${config.authUrl}, mcp-gateway on ${config.baseUrl}; Ctrl-C stops both`);
}

await main();
