/**
 * The gateway's client address follows TRUST_PROXY as the auth-service's does (docs/operations.md
 * "Proxies"): the audit log records the forwarded address only past a named proxy, never a
 * client's own header. An https BASE_URL sends Strict-Transport-Security on every answer.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connectRedis, createAccounts, type Accounts, type Redis } from '@svc/accounts';
import { HSTS_MAX_AGE_SECONDS } from '@svc/config';
import { createLogger } from '@svc/logger';
import { freePort, startRedis, type RedisFixture } from '@svc/testkit';
import { startGateway, type RunningGateway } from '../src/server.ts';
import { gatewayReady, seed, testConfig, type Seeded } from './support.ts';

let redis: RedisFixture;
let client: Redis;
let accounts: Accounts;
const gateways: Record<string, { gw: RunningGateway; url: string }> = {};
let owner: Seeded;
let personal: string;

/** A gateway on the shared Redis with `env` (its own port; the public URL may be https). */
async function gateway(env: Record<string, string>) {
  const port = await freePort();
  const config = testConfig(redis.url, port, { PORT: String(port), ...env });
  const gw = await startGateway({ config, logger: createLogger({ service: 'mcp-gateway', level: 'error', silent: true }) });
  const url = `http://127.0.0.1:${port}`;
  await gatewayReady(url);
  return { gw, url };
}

before(async () => {
  redis = await startRedis();
  client = connectRedis(redis.url, { name: 'test-accounts' });
  gateways['off'] = await gateway({});
  gateways['loopback'] = await gateway({ TRUST_PROXY: 'loopback', BASE_URL: 'https://api.example' });
  gateways['elsewhere'] = await gateway({ TRUST_PROXY: '10.0.0.0/8' });
  accounts = createAccounts(client, { pepper: testConfig(redis.url, 1).keyPepper, bcryptCost: 4 });
  owner = await seed(accounts, { plan: 'TEAM' });
  personal = (await accounts.keys.createUserKey({ userId: owner.userId })).key;
});
after(async () => {
  for (const g of Object.values(gateways)) await g.gw.close();
  client.disconnect();
  await redis.stop();
});

/** Creates a key through `which` gateway with `headers`; the audit entry's source. */
async function sourceRecorded(which: string, name: string, headers: Record<string, string>): Promise<string> {
  const res = await fetch(`${gateways[which]!.url}/api/v1/projects/${owner.project}/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': personal, ...headers },
    body: JSON.stringify({ name, level: 'VIEWER', expires: '30d' }),
  });
  assert.equal(res.status, 201, await res.text());
  const page = await accounts.audit.page(owner.workspace, { limit: 100 });
  const entry = page.entries.find((e) => e.action === 'key.created' && JSON.stringify(e).includes(name));
  assert.ok(entry, `audit entry of ${name}`);
  return entry.source;
}

test('the audit source is the forwarded address only past a named proxy', async () => {
  const spoof = { 'x-forwarded-for': '203.0.113.7', forwarded: 'for=198.51.100.9', 'x-real-ip': '192.0.2.1' };
  assert.equal(await sourceRecorded('off', 'off-key', spoof), '127.0.0.1');
  assert.equal(await sourceRecorded('loopback', 'proxied-key', spoof), '203.0.113.7');
  assert.equal(await sourceRecorded('elsewhere', 'unnamed-peer-key', spoof), '127.0.0.1');
});

test('an https BASE_URL sends Strict-Transport-Security on every answer; http sends none', async () => {
  for (const path of ['/healthz', '/mcp/nope', '/api/v1/me', '/.well-known/oauth-protected-resource/mcp/demo']) {
    const secure = await fetch(`${gateways['loopback']!.url}${path}`, { method: path.startsWith('/mcp') ? 'POST' : 'GET' });
    assert.equal(secure.headers.get('strict-transport-security'), `max-age=${HSTS_MAX_AGE_SECONDS}`, path);
    await secure.body?.cancel();
    const plain = await fetch(`${gateways['off']!.url}${path}`);
    assert.equal(plain.headers.get('strict-transport-security'), null, path);
    await plain.body?.cancel();
  }
  assert.equal(HSTS_MAX_AGE_SECONDS, 365 * 86_400);
});
