/**
 * Metric labels take bounded sets of values (docs/security.md "Bounds"): however many tenants,
 * tools, paths and methods callers name, /metrics holds the same series. A label carrying a
 * workspace, a slug or a name from the request would add series with every new value.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connectRedis, type Redis } from '@svc/accounts';
import { svcMetricSeries } from '@svc/testkit';
import { call, post, rpc, seed, startFixture, type GatewayFixture } from './support.ts';

let f: GatewayFixture;
let redis: Redis;
before(async () => {
  f = await startFixture();
  redis = connectRedis(f.redis.url, { name: 'metrics-test' });
});
after(async () => {
  redis.disconnect();
  await f.close();
});

/** Puts a workspace past its fair-use monthly figure, so its next query is counted as such. */
async function pastFairUse(workspace: string): Promise<void> {
  const [month] = await redis.keys(`svc:rl:{${workspace}}:q:*`);
  assert.ok(month, 'the first query created the month counter');
  await redis.set(month, 10_000_000);
}

/** One round of traffic: tenants, tools, projects and paths named by `tag`, each kind of request once. */
async function traffic(tag: string): Promise<void> {
  for (let i = 0; i < 5; i++) {
    const t = await seed(f.accounts, { plan: 'ENTERPRISE' });
    const key = { 'X-API-Key': t.key };
    await post(f.url, `/mcp/${t.project}`, call('svc_search', { query: tag }), key);
    await pastFairUse(t.workspace);
    await post(f.url, `/mcp/${t.project}`, call('svc_search', { query: tag }), key);
    await post(f.url, `/mcp/${t.project}`, call(`svc_${tag}_${i}`), key);
    await post(f.url, `/mcp/${t.project}`, rpc(`${tag}/${i}`), key);
    await post(f.url, `/mcp/${tag}-${i}`, call('svc_help'), key);
    await post(f.url, `/api/v1/projects/${t.project}/tools/${tag}_${i}`, {}, key);
    await fetch(`${f.url}/${tag}/${i}`);
  }
}

test('new tenants (past their fair use too), tools, methods and paths add no metric series', async () => {
  await traffic('first');
  const before = await svcMetricSeries(f.url);
  await traffic('second');
  const added = [...(await svcMetricSeries(f.url))].filter((s) => !before.has(s));
  assert.deepEqual(added, []);
});
