/** Redis unreachable: 503 with a clear message (never a 500, never a pass); recovery by itself. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connectRedis, createAccounts } from '@svc/accounts';
import { waitFor } from '@svc/testkit';
import { post, rpc, seed, startFixture, type GatewayFixture } from './support.ts';

let f: GatewayFixture;
before(async () => {
  f = await startFixture({ AUTH_CACHE_TTL_MS: '0' });
});
after(() => f.close());

test('requests that need Redis get 503 while it is down, and work again when it returns', async () => {
  const s = await seed(f.accounts);
  assert.equal((await post(f.url, `/mcp/${s.project}`, rpc('ping'), { 'X-API-Key': s.key })).status, 200);
  await f.redis.kill();
  const down = await post(f.url, `/mcp/${s.project}`, rpc('ping', undefined, 7), { 'X-API-Key': s.key });
  assert.equal(down.status, 503);
  assert.equal(down.body.error.data.code, 'service_unavailable');
  assert.equal(down.body.id, 7);
  assert.match(down.body.error.message, /temporarily unavailable/);
  assert.equal((await fetch(`${f.url}/readyz`)).status, 503);
  assert.equal((await fetch(`${f.url}/healthz`)).status, 200, 'alive while Redis is away');
  const missing = await post(f.url, `/mcp/${s.project}`, rpc('ping'));
  assert.equal(missing.status, 401, 'a request without credentials is still refused as such');

  await f.redis.restart();
  // The restarted server is empty: seed again through a fresh connection, then expect recovery.
  const client = connectRedis(f.redis.url);
  const again = await seed(createAccounts(client, { pepper: f.config.keyPepper, bcryptCost: 4 }));
  client.disconnect();
  await waitFor(async () => (await post(f.url, `/mcp/${again.project}`, rpc('ping'), { 'X-API-Key': again.key })).status === 200, {
    timeout: 5_000,
    interval: 100,
    message: 'the gateway to recover by itself (200 once Redis is back)',
  });
});

test('with a valid cached credential and Redis down, the rate limiter refuses with 503 (no unlimited pass)', async () => {
  const g = await startFixture({ AUTH_CACHE_TTL_MS: '60000' });
  try {
    const s = await seed(g.accounts);
    assert.equal((await post(g.url, `/mcp/${s.project}`, rpc('ping'), { 'X-API-Key': s.key })).status, 200);
    await g.redis.kill();
    const res = await post(g.url, `/mcp/${s.project}`, rpc('ping'), { 'X-API-Key': s.key });
    assert.equal(res.status, 503);
  } finally {
    await g.redis.restart();
    await g.close();
  }
});
