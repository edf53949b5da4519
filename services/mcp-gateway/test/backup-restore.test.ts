/**
 * Backup and restore as docs/operations.md "Backup and restore" tells an operator: a snapshot taken
 * from the running Redis with `redis-cli --rdb`, loaded by a fresh redis-server, holds every key
 * the original held (same value, no longer a lifetime), and a gateway on it accepts the same keys,
 * refuses the revoked ones, keeps counting the same rate-limit window and lists the same audit log.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, test } from 'node:test';
import { connectRedis, createAccounts, scanKeys, type Redis } from '@svc/accounts';
import { createLogger } from '@svc/logger';
import { freePort, outsideLoopBudget, startRedis, testClock, type RedisFixture } from '@svc/testkit';
import { startGateway, type RunningGateway } from '../src/server.ts';
import { call, gatewayReady, post, rpc, seed, testConfig } from './support.ts';

const cleanup: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const c of cleanup.reverse()) await c();
});

const logger = createLogger({ service: 'mcp-gateway', level: 'error', silent: true });

/**
 * A gateway on `redis`. Starting one is the test's set-up, not a request it serves (it compiles
 * the tools' schemas in one turn): outside the loop budget, as a before() hook would be.
 */
/**
 * The gateways' clock, held still: the counters compared before and after the restore are of one
 * rate-limit minute, whichever minute of the wall clock the test runs across.
 */
const clock = testClock();

async function gatewayOn(redis: RedisFixture): Promise<RunningGateway> {
  return outsideLoopBudget(async () => {
    const gw = await startGateway({ config: testConfig(redis.url, await freePort()), logger, now: clock.now });
    await gatewayReady(gw.url);
    return gw;
  });
}

/** A key's value by its type, in an order of its own (an encoding may differ after a load). */
async function valueOf(redis: Redis, key: string): Promise<unknown> {
  const type = await redis.type(key);
  if (type === 'string') return redis.get(key);
  if (type === 'hash') return Object.entries(await redis.hgetall(key)).sort();
  if (type === 'set') return (await redis.smembers(key)).sort();
  if (type === 'zset') return redis.zrange(key, 0, -1, 'WITHSCORES');
  if (type === 'list') return redis.lrange(key, 0, -1);
  if (type === 'stream') return redis.xrange(key, '-', '+');
  throw new Error(`${key}: a ${type} the backup test does not compare`);
}

/** Every key with its type, value and remaining lifetime in ms (-1: none). */
async function contents(redis: Redis): Promise<Map<string, { value: string; pttl: number }>> {
  const out = new Map<string, { value: string; pttl: number }>();
  for await (const keys of scanKeys(redis, '*'))
    for (const key of keys)
      out.set(key, { value: `${await redis.type(key)} ${JSON.stringify(await valueOf(redis, key))}`, pttl: await redis.pttl(key) });
  return out;
}

test('a redis-cli --rdb snapshot restores every key, grant, limit counter and audit entry', async () => {
  const source = await startRedis();
  cleanup.push(() => source.stop());
  let gw = await gatewayOn(source);
  const client = connectRedis(source.url, { name: 'test-backup' });
  cleanup.push(async () => client.disconnect());
  const accounts = createAccounts(client, { pepper: testConfig(source.url, 1).keyPepper, bcryptCost: 4 });
  const s = await seed(accounts, { plan: 'FREE' });
  const { bot, key: botKey } = await accounts.bots.create({ workspace: s.workspace, name: 'deployer' });
  await accounts.bots.grant(bot.id, s.project, 'VIEWER');
  const revoked = await accounts.keys.createProjectKey({ project: s.project, workspace: s.workspace, name: 'old', level: 'EDITOR' });
  await accounts.keys.revoke(revoked.id);
  for (const action of ['key.created', 'key.revoked', 'member.role_changed'] as const)
    await accounts.audit.record({
      workspace: s.workspace,
      actor: s.email,
      action,
      target: `project:${s.project}`,
      source: 'test',
      requestId: action,
    });
  let remaining = '';
  for (let i = 0; i < 5; i++)
    remaining =
      (await post(gw.url, `/mcp/${s.project}`, call('svc_help'), { 'X-API-Key': s.key })).headers.get('x-ratelimit-remaining') ?? '';
  // Nothing writes while the snapshot is taken and compared (the gateway records last use later).
  await gw.close();
  const auditBefore = await accounts.audit.page(s.workspace);

  const dir = await mkdtemp(join(tmpdir(), 'svc-backup-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  await promisify(execFile)('redis-cli', ['-h', '127.0.0.1', '-p', String(source.port), '--rdb', join(dir, 'dump.rdb')]);
  const held = await contents(source.client);

  const restored = await startRedis({ dir });
  cleanup.push(() => restored.stop());
  const found = await contents(restored.client);
  assert.deepEqual([...found.keys()].sort(), [...held.keys()].sort(), 'the same keys');
  for (const [key, { value, pttl }] of held) {
    const r = found.get(key);
    assert.equal(r?.value, value, `${key}: the same value`);
    assert.ok(
      pttl === -1 ? r.pttl === -1 : r.pttl > 0 && r.pttl <= pttl,
      `${key}: a lifetime no longer than before (${pttl} -> ${r.pttl})`,
    );
  }

  gw = await gatewayOn(restored);
  cleanup.push(() => gw.close());
  const again = await post(gw.url, `/mcp/${s.project}`, call('svc_help'), { 'X-API-Key': s.key });
  assert.equal(again.status, 200);
  assert.equal(Number(again.headers.get('x-ratelimit-remaining')), Number(remaining) - 1, 'the same rate-limit window, still counting');
  assert.equal(
    (await post(gw.url, `/mcp/${s.project}`, rpc('ping'), { 'X-API-Key': revoked.key })).status,
    401,
    'a revoked key stays revoked',
  );
  const asBot = await post(gw.url, `/mcp/${s.project}`, call('svc_help'), { 'X-API-Key': botKey.key });
  assert.equal(asBot.body.result.structuredContent.role, 'VIEWER', "the service account's grant");
  const restoredAccounts = createAccounts(restored.client, { pepper: testConfig(restored.url, 1).keyPepper, bcryptCost: 4 });
  assert.deepEqual(await restoredAccounts.audit.page(s.workspace), auditBefore, 'the same audit log');
});
