/** The gateway and the account model on a real 3-master Redis Cluster (REDIS_CLUSTER=on). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connectRedis, createAccounts, type Accounts, type Redis } from '@svc/accounts';
import { createLogger } from '@svc/logger';
import { freePort, startRedisCluster, waitFor, type RedisClusterFixture } from '@svc/testkit';
import { startGateway, type RunningGateway } from '../src/server.ts';
import { gatewayReady, post, rpc, seed, testConfig } from './support.ts';

let cluster: RedisClusterFixture;
let gw: RunningGateway;
let client: Redis;
let accounts: Accounts;
let url: string;

before(async () => {
  cluster = await startRedisCluster();
  const port = await freePort();
  // A cluster without replicas: nothing could confirm a write (docs/operations.md "Write durability").
  const config = testConfig(cluster.url, port, { REDIS_CLUSTER: 'on', REDIS_WAIT_REPLICAS: '0' });
  gw = await startGateway({ config, logger: createLogger({ service: 'gw', silent: true }) });
  url = `http://127.0.0.1:${port}`;
  await gatewayReady(url);
  client = connectRedis(cluster.url, { cluster: true });
  accounts = createAccounts(client, { pepper: config.keyPepper, bcryptCost: 4 });
});
after(async () => {
  await gw.close();
  client.disconnect();
  await cluster.stop();
});

test('keys, roles, limits and revocation work across cluster slots', async () => {
  const seeded = [];
  for (let i = 0; i < 5; i++) seeded.push(await seed(accounts, { plan: 'FREE' }));
  for (const s of seeded) {
    const res = await post(url, `/mcp/${s.project}`, rpc('tools/list'), { 'X-API-Key': s.key });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('x-ratelimit-remaining'), '29');
  }
  const s = seeded[0]!;
  await accounts.keys.revoke(s.keyId);
  await waitFor(async () => (await post(url, `/mcp/${s.project}`, rpc('ping'), { 'X-API-Key': s.key })).status === 401, {
    timeout: 1000,
    message: 'the revocation to reach the gateway through cluster pub/sub (a 401)',
  });
  const listed = await accounts.keys.listForProject(seeded[1]!.project);
  assert.equal(listed.length, 1);
});
