/**
 * `pnpm start` / `pnpm demo`: both services in the foreground, stopped together on Ctrl-C or
 * SIGTERM. Without REDIS_URL and with nothing on 127.0.0.1:6379 it starts a private redis-server
 * (data under .data/redis). `--demo` first creates a demo user, workspace, project and keys and
 * prints them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { connectRedis, createAccounts, waitReady } from '@svc/accounts';
import { loadConfig } from '@svc/config';
import { seedDemo } from './demo.ts';

const root = resolve(import.meta.dirname, '..');
const demo = process.argv.includes('--demo');
const children: ChildProcess[] = [];
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

function run(name: string, cmd: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
  child.on('error', (err) => {
    say(`${name} could not start: ${err.message}`);
    void stop(1);
  });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      say(`${name} exited (${signal ?? code}); stopping everything`);
      void stop(code || 1);
    }
  });
  children.push(child);
  return child;
}

async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  for (const c of [...children].reverse()) if (c.exitCode === null) c.kill('SIGTERM');
  setTimeout(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    process.exit(code);
  }, 8_000).unref();
  await Promise.all(children.map((c) => (c.exitCode !== null ? null : new Promise((r) => c.once('exit', r)))));
  process.exit(code);
}

process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

const env = { ...process.env };
if (!env['REDIS_URL'] && !(await portOpen(6379))) {
  const dir = resolve(root, '.data/redis');
  mkdirSync(dir, { recursive: true });
  say('no REDIS_URL and nothing on 6379: starting a private redis-server (data in .data/redis)');
  run('redis-server', 'redis-server', ['--port', '6379', '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', ''], env).on(
    'error',
    () => {
      say('redis-server is not installed: run scripts/setup.sh, or apt-get install redis-server, or set REDIS_URL');
    },
  );
}

let config;
try {
  config = loadConfig(env);
} catch (err) {
  say(err instanceof Error ? err.message : String(err));
  process.exit(2);
}
const redis = connectRedis(config.redisUrl, { cluster: config.redisCluster, name: 'svc-start' });
try {
  await waitReady(redis, 15_000);
} catch {
  say(`Redis at ${config.redisUrl} is not reachable`);
  await stop(1);
}
if (demo) await seedDemo(createAccounts(redis, { pepper: config.keyPepper }), config, say);
redis.disconnect();

const node = process.execPath;
run('auth-service', node, ['services/auth-service/src/main.ts'], env);
run('mcp-gateway', node, ['services/mcp-gateway/src/main.ts'], env);
say(`auth-service on ${config.authUrl}, mcp-gateway on ${config.baseUrl}; Ctrl-C stops both`);
