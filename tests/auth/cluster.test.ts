/**
 * The OAuth side on a real 3-master Redis Cluster (REDIS_CLUSTER=on): a device flow approved in
 * chromium, the token accepted by the gateway, then revoked and refused within a second. Every
 * oidc-provider record, lookup and grant set lands in whatever slot its key hashes to, so this
 * fails if the adapter or the verifier ever sends a cross-slot command.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as oc from 'openid-client';
import type { Browser } from 'playwright-core';
import { connectRedis, createAccounts, type Accounts, type Redis } from '@svc/accounts';
import { startAuthService, type RunningAuthService } from '@svc/auth-service/server.ts';
import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { startGateway, type RunningGateway } from '@svc/mcp-gateway/server.ts';
import { freePort, startRedisCluster, testClock, waitFor, type RedisClusterFixture } from '@svc/testkit';
import { PASSWORD } from '../support/stack.ts';
import { launchBrowser, runDeviceFlow } from './browser.ts';
import { mcpCall } from './gateway-call.ts';

let cluster: RedisClusterFixture;
let auth: RunningAuthService;
let gateway: RunningGateway;
let client: Redis;
let accounts: Accounts;
let browser: Browser;
let authUrl: string;
let baseUrl: string;
/** The auth-service's clock: moved past the 30 s refresh replay window, never waited for. */
const clock = testClock({ frozen: false });

before(async () => {
  cluster = await startRedisCluster();
  const [authPort, gwPort] = [await freePort(), await freePort()];
  authUrl = `http://127.0.0.1:${authPort}`;
  baseUrl = `http://127.0.0.1:${gwPort}`;
  const config = loadConfig({
    NODE_ENV: 'test',
    REDIS_URL: cluster.url,
    REDIS_CLUSTER: 'on',
    // A cluster without replicas: nothing could confirm a write (docs/operations.md "Write durability").
    REDIS_WAIT_REPLICAS: '0',
    AUTH_URL: authUrl,
    BASE_URL: baseUrl,
    LOG_LEVEL: 'error',
  });
  const logger = createLogger({ service: 'cluster', level: 'error', silent: !process.env['SVC_TEST_LOGS'] });
  auth = await startAuthService({ config: { ...config, port: authPort }, logger, now: clock.now });
  gateway = await startGateway({ config: { ...config, port: gwPort }, logger });
  // The gateway connects to the cluster in the background (fail-fast): a first request must not race it.
  await waitFor(async () => (await fetch(`${baseUrl}/readyz`)).ok, {
    timeout: 10_000,
    message: 'the gateway to reach the cluster (/readyz)',
  });
  client = connectRedis(cluster.url, { cluster: true, name: 'cluster-test' });
  accounts = createAccounts(client, { pepper: config.keyPepper, bcryptCost: 4 });
  browser = await launchBrowser();
});
after(async () => {
  await browser.close();
  await gateway.close();
  await auth.close();
  client.disconnect();
  await cluster.stop();
});

test('device flow, gateway call and revocation on Redis Cluster', async () => {
  const email = `cluster-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const user = await accounts.users.create({ emailVerified: true, email, password: PASSWORD });
  const slug = `cluster-${Math.random().toString(36).slice(2, 8)}`;
  await accounts.workspaces.createProject({ slug, workspace: user.workspace });

  const { tokens, page, config } = await runDeviceFlow(browser, {
    authUrl,
    clientId: 'svc-mcp',
    email,
    password: PASSWORD,
    approval: { kind: 'select', project: slug },
    name: 'cluster',
  });
  assert.match(page, /Device connected/);
  assert.equal((await mcpCall(baseUrl, slug, tokens.access_token)).status, 200);

  // Refresh rotation reads and consumes records in other slots.
  const refreshed = await oc.refreshTokenGrant(config, String(tokens.refresh_token));
  assert.equal((await mcpCall(baseUrl, slug, refreshed.access_token)).status, 200);

  // Reusing the consumed refresh token past the replay window revokes the grant: revokeByGrantId
  // deletes keys across slots.
  clock.advance(30_001);
  await assert.rejects(
    oc.refreshTokenGrant(config, String(tokens.refresh_token)),
    (err: { error?: string }) => err.error === 'invalid_grant',
  );
  const after = await waitFor(
    async () => {
      const res = await mcpCall(baseUrl, slug, refreshed.access_token);
      return res.status === 401 && res;
    },
    { timeout: 1000, message: 'the gateway to refuse the access token of the revoked grant' },
  );
  assert.equal(after.body.error?.message, 'Invalid OAuth token');
});
