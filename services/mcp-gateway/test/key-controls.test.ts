/**
 * A key's controls at the gateway (docs/contract.md "Credentials"): a disabled key is refused by
 * every gateway within a second (the revocation's invalidation) and accepted again once enabled;
 * an IP allow-list admits only the client address TRUST_PROXY resolves, IPv4 and IPv6, so a forged
 * X-Forwarded-For passes only past a named proxy; the list costs no Redis command.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connectRedis, createAccounts, type Accounts, type Redis } from '@svc/accounts';
import { createLogger } from '@svc/logger';
import { freePort, outsideLoopBudget, startRedis, waitFor, type RedisFixture } from '@svc/testkit';
import { startGateway, type RunningGateway } from '../src/server.ts';
import { gatewayReady, post, rpc, seed, testConfig, type Seeded } from './support.ts';

let redis: RedisFixture;
let client: Redis;
let accounts: Accounts;
const gateways: Record<'off' | 'replica' | 'loopback', { gw: RunningGateway; url: string }> = {} as never;
let s: Seeded;

/** A gateway on the shared Redis; its cache keeps answers 60 s, so only the invalidation clears them. */
async function gateway(env: Record<string, string>) {
  const port = await freePort();
  const config = testConfig(redis.url, port, { PORT: String(port), AUTH_CACHE_TTL_MS: '60000', ...env });
  const gw = await startGateway({ config, logger: createLogger({ service: 'mcp-gateway', level: 'error', silent: true }) });
  const url = `http://127.0.0.1:${port}`;
  await gatewayReady(url);
  return { gw, url };
}

before(async () => {
  redis = await startRedis();
  client = connectRedis(redis.url, { name: 'test-accounts' });
  gateways.off = await gateway({});
  gateways.replica = await gateway({});
  gateways.loopback = await gateway({ TRUST_PROXY: 'loopback' });
  accounts = createAccounts(client, { pepper: testConfig(redis.url, 1).keyPepper, bcryptCost: 4 });
  s = await seed(accounts, { plan: 'TEAM' });
});
after(async () => {
  for (const g of Object.values(gateways)) await g.gw.close();
  client.disconnect();
  await redis.stop();
});

const ping = (which: keyof typeof gateways, key: string, headers: Record<string, string> = {}) =>
  post(gateways[which].url, `/mcp/${s.project}`, rpc('ping'), { 'X-API-Key': key, ...headers });

test('a disabled key is refused by every gateway within a second, naming it disabled; enabled, it works again', async () => {
  const k = await accounts.keys.createProjectKey({ project: s.project, workspace: s.workspace, name: 'to disable' });
  for (const which of ['off', 'replica', 'loopback'] as const) assert.equal((await ping(which, k.key)).status, 200);
  await accounts.keys.setDisabled(k.id, true);
  for (const which of ['off', 'replica', 'loopback'] as const)
    await waitFor(async () => (await ping(which, k.key)).status === 401, { timeout: 1000, message: `${which} to refuse the disabled key` });
  const refused = await ping('replica', k.key);
  assert.equal(refused.body.error.message, 'API key disabled');
  assert.match(refused.body.error.data.remedy, /enable it again/);
  // REST says so too.
  const rest = await fetch(`${gateways.off.url}/api/v1/projects/${s.project}/keys`, { headers: { 'x-api-key': k.key } });
  assert.equal(rest.status, 401);
  assert.equal(((await rest.json()) as { error: { message: string } }).error.message, 'API key disabled');

  await accounts.keys.setDisabled(k.id, false);
  for (const which of ['off', 'replica', 'loopback'] as const)
    await waitFor(async () => (await ping(which, k.key)).status === 200, { timeout: 1000, message: `${which} to accept the enabled key` });
});

test('allow-list without TRUST_PROXY: the TCP peer is the client; a forged X-Forwarded-For never passes', async () => {
  const k = await accounts.keys.createProjectKey({
    project: s.project,
    workspace: s.workspace,
    name: 'office only',
    allowedIps: ['203.0.113.0/24', '2001:db8::/32'],
  });
  const forgeries: Record<string, string>[] = [
    {},
    { 'X-Forwarded-For': '203.0.113.7' },
    { 'X-Forwarded-For': '2001:db8::1' },
    { Forwarded: 'for=203.0.113.7' },
  ];
  for (const forged of forgeries) {
    const res = await ping('off', k.key, forged);
    assert.equal(res.status, 403, JSON.stringify(forged));
    assert.equal(res.body.error.message, 'API key not allowed from this address');
    assert.equal(res.body.error.data.address, '127.0.0.1');
  }
  const local = await accounts.keys.createProjectKey({
    project: s.project,
    workspace: s.workspace,
    name: 'here',
    allowedIps: ['127.0.0.0/8'],
  });
  assert.equal((await ping('off', local.key, { 'X-Forwarded-For': '198.51.100.1' })).status, 200);
});

test('allow-list behind a named proxy: the forwarded address decides, IPv4 and IPv6', async () => {
  const k = await accounts.keys.createProjectKey({
    project: s.project,
    workspace: s.workspace,
    name: 'behind proxy',
    allowedIps: ['203.0.113.0/24', '2001:db8::/32'],
  });
  const cases: [string, number][] = [
    ['203.0.113.7', 200],
    ['203.0.114.7', 403],
    ['2001:db8::1', 200],
    ['2001:db8:ffff:ffff::9', 200],
    ['2001:db9::1', 403],
    ['::ffff:203.0.113.8', 200],
    // Only the entry the named proxy (loopback) wrote counts, not what the client put before it.
    ['203.0.113.7, 198.51.100.1', 403],
  ];
  for (const [forwarded, status] of cases)
    assert.equal((await ping('loopback', k.key, { 'X-Forwarded-For': forwarded })).status, status, forwarded);
  // The peer itself (loopback, a trusted proxy with nothing forwarded) is not on the list.
  assert.equal((await ping('loopback', k.key)).status, 403);
});

test('a changed allow-list applies on every gateway within a second; the check sends no Redis command', async () => {
  const k = await accounts.keys.createProjectKey({ project: s.project, workspace: s.workspace, name: 'moving' });
  for (const which of ['off', 'replica'] as const) assert.equal((await ping(which, k.key)).status, 200);
  await accounts.keys.setAllowedIps(k.id, ['198.51.100.0/24']);
  for (const which of ['off', 'replica'] as const)
    await waitFor(async () => (await ping(which, k.key)).status === 403, { timeout: 1000, message: `${which} to apply the allow-list` });

  // A cached key with a list sends the same commands per request as one without (the rate limit's).
  const open = await accounts.keys.createProjectKey({ project: s.project, workspace: s.workspace, name: 'open' });
  const listed = await accounts.keys.createProjectKey({
    project: s.project,
    workspace: s.workspace,
    name: 'listed',
    allowedIps: ['127.0.0.1'],
  });
  // The fewest of a few requests: the last-used flush runs on a timer and may fall between two reads.
  const commands = async (key: string) => {
    await ping('replica', key);
    const counts = [];
    for (let i = 0; i < 3; i++) {
      const before = await commandsSent();
      assert.equal((await ping('replica', key)).status, 200);
      counts.push((await commandsSent()) - before);
    }
    return Math.min(...counts);
  };
  assert.equal(await commands(listed.key), await commands(open.key));
});

/** svc_gateway_redis_commands_total of the replica, read from its /metrics. */
async function commandsSent(): Promise<number> {
  const text = await outsideLoopBudget(async () => (await fetch(`${gateways.replica.url}/metrics`)).text());
  return Number(/^svc_gateway_redis_commands_total (\d+)/m.exec(text)?.[1] ?? NaN);
}
