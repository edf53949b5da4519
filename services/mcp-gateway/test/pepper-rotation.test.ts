/**
 * Rotating KEY_PEPPER without downtime (docs/operations.md "Rotating the key pepper"): a fleet
 * whose replicas hold the old and the new pepper in either order accepts every key, a key used
 * once is re-hashed under the new pepper, revocation still reaches every cached answer, and
 * `pepper status` says which keys would be lost if the old pepper were retired now.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connectRedis, createAccounts, type Accounts, type Redis } from '@svc/accounts';
import { createLogger } from '@svc/logger';
import { freePort, outsideLoopBudget, waitFor } from '@svc/testkit';
import { startGateway, type RunningGateway } from '../src/server.ts';
import { gatewayReady, post, rpc, seed, startFixture, testConfig, type GatewayFixture } from './support.ts';

const OLD = 'old-pepper-of-at-least-thirty-two-characters';
const NEW = 'new-pepper-of-at-least-thirty-two-characters';

let f: GatewayFixture;
let client: Redis;
const gateways: RunningGateway[] = [];
/** The account stores as a replica configured with `pepper` (and `previous`) sees them. */
const stores = (pepper: string, previous: string | null = null): Accounts =>
  createAccounts(client, { pepper, previousPepper: previous, bcryptCost: 4 });

/**
 * A gateway replica with its own peppers and a long cache, so only invalidation can end an answer.
 * Starting it is set-up, not a request it serves: outside the loop budget, as a before() hook is.
 */
async function replica(pepper: string, previous?: string): Promise<string> {
  const port = await freePort();
  const env: Record<string, string> = { KEY_PEPPER: pepper, AUTH_CACHE_TTL_MS: '60000' };
  if (previous) env['KEY_PEPPER_PREVIOUS'] = previous;
  return outsideLoopBudget(async () => {
    const gw = await startGateway({
      config: testConfig(f.redis.url, port, env),
      logger: createLogger({ service: 'mcp-gateway', level: 'error', silent: true }),
    });
    gateways.push(gw);
    await gatewayReady(gw.url);
    return gw.url;
  });
}

const ping = async (url: string, project: string, key: string) =>
  (await post(url, `/mcp/${project}`, rpc('ping'), { 'X-API-Key': key })).status;

before(async () => {
  f = await startFixture({ KEY_PEPPER: OLD });
  client = connectRedis(f.redis.url, { name: 'test-peppers' });
});
after(async () => {
  for (const g of gateways) await g.close();
  client.disconnect();
  await f.close();
});

test('during each step of a rotation every replica accepts keys made under either pepper', async () => {
  const before = await seed(stores(OLD));
  // Step 1: the new pepper is added as the other one; step 2: it becomes the current one. A
  // rolling deploy runs replicas of both steps (and of no step) side by side.
  const fleet = [await replica(OLD), await replica(OLD, NEW), await replica(NEW, OLD)];
  const during = await seed(stores(NEW, OLD));
  for (const url of fleet.slice(1)) {
    assert.equal(await ping(url, before.project, before.key), 200, 'a key made under the old pepper');
    assert.equal(await ping(url, during.project, during.key), 200, 'a key made under the new pepper');
  }
  assert.equal(await ping(fleet[0] as string, before.project, before.key), 200);
});

test('a key used once is re-hashed: it outlives the old pepper, an unused one does not, and status says which', async () => {
  const used = await seed(stores(OLD));
  const unused = await seed(stores(OLD));
  const rotating = await replica(NEW, OLD);
  const status = () => stores(NEW, OLD).keys.pepperStatus();
  const waitingIds = async () => (await status()).waiting.map((k) => k.id);
  assert.ok((await waitingIds()).includes(used.keyId));
  assert.equal(await ping(rotating, used.project, used.key), 200);
  assert.ok(!(await waitingIds()).includes(used.keyId), 'the used key no longer needs the old pepper');
  assert.ok((await waitingIds()).includes(unused.keyId), 'the unused key still does');
  const s = await status();
  assert.equal(s.live, s.underCurrent + s.waiting.length);
  // Step 3: the old pepper is retired.
  const retired = await replica(NEW);
  assert.equal(await ping(retired, used.project, used.key), 200);
  assert.equal(await ping(retired, unused.project, unused.key), 401);
});

test('revoking a re-hashed key reaches the answer every replica cached for it', async () => {
  const s = await seed(stores(OLD));
  const urls = [await replica(NEW, OLD), await replica(NEW, OLD)];
  for (const url of urls) assert.equal(await ping(url, s.project, s.key), 200);
  await stores(NEW, OLD).keys.revoke(s.keyId);
  for (const url of urls)
    await waitFor(async () => (await ping(url, s.project, s.key)) === 401, { timeout: 1000, message: `${url} to refuse the revoked key` });
});
