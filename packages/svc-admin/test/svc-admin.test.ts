/** svc-admin as operators and scripts use it: every command with --json prints one JSON object. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { startRedis, type RedisFixture } from '@svc/testkit';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../../..');
let redis: RedisFixture;

before(async () => {
  redis = await startRedis();
});
after(() => redis.stop());

async function admin(...args: string[]): Promise<any> {
  const { stdout } = await run(resolve(root, 'scripts/node'), ['packages/svc-admin/src/main.ts', ...args, '--json'], {
    cwd: root,
    env: { ...process.env, REDIS_URL: redis.url },
  });
  const lines = stdout.trim().split('\n');
  assert.equal(lines.length, 1, `exactly one line: ${stdout}`);
  return JSON.parse(lines[0]!);
}

async function adminFails(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    await run(resolve(root, 'scripts/node'), ['packages/svc-admin/src/main.ts', ...args, '--json'], {
      cwd: root,
      env: { ...process.env, REDIS_URL: redis.url },
    });
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return e;
  }
  assert.fail('expected a failure');
}

test('every command of the operator interface, as product-decisions.md lists it', async () => {
  const u = await admin('user', 'create', '--email', 'Owner@Example.com', '--password', 'correct horse battery staple');
  assert.deepEqual(Object.keys(u).sort(), ['email', 'id', 'workspace']);
  assert.equal(u.email, 'owner@example.com');
  assert.match(u.id, /^user_/);
  assert.deepEqual(await admin('workspace', 'create', '--slug', 'team-a', '--owner', 'owner@example.com', '--plan', 'TEAM'), {
    slug: 'team-a',
    plan: 'TEAM',
  });
  assert.deepEqual(await admin('workspace', 'set-plan', '--slug', 'team-a', '--plan', 'PRO', '--agents', 'on'), {
    slug: 'team-a',
    plan: 'PRO',
    agents: true,
  });
  assert.deepEqual(await admin('project', 'create', '--slug', 'docs', '--workspace', 'team-a'), { slug: 'docs', workspace: 'team-a' });
  await admin('user', 'create', '--email', 'member@example.com', '--password', 'correct horse battery staple');
  assert.deepEqual(await admin('member', 'set', '--project', 'docs', '--email', 'member@example.com', '--role', 'VIEWER'), {
    project: 'docs',
    email: 'member@example.com',
    role: 'VIEWER',
  });
  const k = await admin('key', 'create', '--project', 'docs', '--level', 'VIEWER', '--name', 'ci', '--expires-in', '3600');
  assert.deepEqual(Object.keys(k).sort(), ['expires_at', 'id', 'key', 'level']);
  assert.match(k.key, /^svc-[0-9A-Za-z]{28}$/);
  assert.ok(Date.parse(k.expires_at) > Date.now());
  const list = await admin('key', 'list', '--project', 'docs');
  assert.equal(list.keys.length, 1);
  assert.deepEqual(Object.keys(list.keys[0]).sort(), ['expires_at', 'id', 'last_used_at', 'level', 'name', 'prefix', 'revoked']);
  assert.ok(!JSON.stringify(list).includes(k.key), 'a listing never shows the key');
  assert.deepEqual(await admin('key', 'revoke', '--id', k.id), { id: k.id, revoked: true });
  const uk = await admin('user-key', 'create', '--email', 'member@example.com');
  assert.match(uk.key, /^svc-user-/);
  assert.ok(Math.abs(Date.parse(uk.expires_at) - Date.now() - 30 * 86400_000) < 60_000);
  const bot = await admin('bot', 'create', '--workspace', 'team-a', '--name', 'ci-bot');
  assert.match(bot.key, /^svc-bot-/);
  assert.deepEqual(await admin('bot', 'grant', '--id', bot.id, '--project', 'docs', '--level', 'VIEWER'), {
    id: bot.id,
    project: 'docs',
    level: 'VIEWER',
  });
  assert.deepEqual(await admin('access-request', 'list', '--project', 'docs'), { requests: [] });
  assert.match((await admin('legacy-key', 'create', '--project', 'docs')).key, /^rlm_pk_/);
  assert.match((await admin('legacy-key', 'create', '--team', 'team-a')).key, /^rlm_team_/);
});

test('errors are one JSON object on stdout, a message on stderr, exit 1', async () => {
  const dup = await adminFails('workspace', 'create', '--slug', 'x', '--owner', 'nobody@example.com', '--plan', 'FREE');
  assert.equal(dup.code, 1);
  assert.equal(JSON.parse(dup.stdout).error.code, 'not_found');
  assert.match(dup.stderr, /no user with email nobody@example.com/);
  const bad = await adminFails('key', 'create', '--project', 'docs', '--level', 'OWNER', '--name', 'x');
  assert.match(JSON.parse(bad.stdout).error.message, /--level must be VIEWER, EDITOR or ADMIN/);
  const unknown = await adminFails('frobnicate', 'now');
  assert.equal(JSON.parse(unknown.stdout).error.code, 'usage');
});
