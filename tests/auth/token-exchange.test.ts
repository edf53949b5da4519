/**
 * Delegation by token exchange across the services (docs/auth-service.md "Delegation (token
 * exchange)"): a sub-agent trades a person's token for its own through the auth-service (openid-client's
 * generic grant request) and calls the gateway with it, at no more than the parent's level and on
 * no other project; the gateway sees the chain of acting clients; revoking the parent at the
 * auth-service (RFC 7009, or the person's authorized apps) ends the child and the grandchild on
 * every gateway replica within the revocation bound, though each had it cached.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connectRedis, createAccounts, type Accounts, type Redis } from '@svc/accounts';
import { startAuthService, type RunningAuthService } from '@svc/auth-service/server.ts';
import { loadConfig, type Config } from '@svc/config';
import { createLogger } from '@svc/logger';
import { createOAuthTokenVerifier } from '@svc/mcp-gateway/auth/oauth-token-verifier.ts';
import { startGateway, type RunningGateway } from '@svc/mcp-gateway/server.ts';
import { MCP_SCOPES } from '@svc/policy';
import { freePort, outsideLoopBudget, startRedis, waitFor, type RedisFixture } from '@svc/testkit';
import * as oc from 'openid-client';
import { mcpCall } from './gateway-call.ts';

const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

let redis: RedisFixture;
let client: Redis;
let accounts: Accounts;
let config: Config;
let auth: RunningAuthService;
let gateways: RunningGateway[];
let owner: { id: string; workspace: string };
let slug: string;
let otherSlug: string;
let agents: oc.Configuration[];

before(async () => {
  redis = await startRedis();
  const [authPort, ...gwPorts] = [await freePort(), await freePort(), await freePort()];
  const authUrl = `http://127.0.0.1:${authPort}`;
  // AUTH_CACHE_TTL_MS: a minute, so only the revocation's messages can drop a cached token.
  config = loadConfig({
    NODE_ENV: 'test',
    REDIS_URL: redis.url,
    AUTH_URL: authUrl,
    BASE_URL: `http://127.0.0.1:${gwPorts[0]}`,
    LOG_LEVEL: 'error',
    AUTH_CACHE_TTL_MS: '60000',
  });
  const logger = createLogger({ service: 'token-exchange', level: 'error', silent: !process.env['SVC_TEST_LOGS'] });
  await outsideLoopBudget(async () => {
    auth = await startAuthService({ config: { ...config, port: authPort }, logger });
    // Two replicas behind one public URL (BASE_URL): both accept the same tokens.
    gateways = [];
    for (const port of gwPorts) gateways.push(await startGateway({ config: { ...config, port }, logger }));
  });
  for (const gw of gateways)
    await waitFor(async () => (await fetch(`${gw.url}/readyz`)).ok, { timeout: 10_000, message: 'a gateway to reach Redis (/readyz)' });
  client = connectRedis(redis.url, { name: 'token-exchange-test' });
  accounts = createAccounts(client, { pepper: config.keyPepper, bcryptCost: 4 });
  const tag = Math.random().toString(36).slice(2, 8);
  owner = await accounts.users.create({ emailVerified: true, email: `deleg-${tag}@example.com`, password: 'correct horse battery staple' });
  slug = `deleg-${tag}`;
  otherSlug = `deleg-other-${tag}`;
  await accounts.workspaces.createProject({ slug, workspace: owner.workspace });
  await accounts.workspaces.createProject({ slug: otherSlug, workspace: owner.workspace });
  agents = [];
  for (const name of ['Orchestrator agent', 'Worker agent']) {
    const reg = await fetch(`${authUrl}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: name, grant_types: [TOKEN_EXCHANGE_GRANT] }),
    });
    const id = ((await reg.json()) as { client_id: string }).client_id;
    agents.push(
      await oc.discovery(new URL(authUrl), id, { token_endpoint_auth_method: 'none' }, oc.None(), { execute: [oc.allowInsecureRequests] }),
    );
  }
});
after(async () => {
  for (const gw of gateways ?? []) await gw.close();
  await auth?.close();
  client?.disconnect();
  await redis?.stop();
});

/** The person's svc-mcp token for the project, approved at ADMIN, as the device flow saves one. */
async function personToken(): Promise<{ token: string; grantId: string }> {
  const p = auth.provider;
  const resource = `${config.baseUrl}/mcp/${slug}`;
  const grant = new p.Grant({ accountId: owner.id, clientId: 'svc-mcp' });
  grant.addResourceScope(resource, 'mcp:admin');
  const grantId = await grant.save();
  const svcMcp = await p.Client.find('svc-mcp');
  const at = new p.AccessToken({
    accountId: owner.id,
    client: svcMcp!,
    grantId,
    gty: 'device_code',
    scope: 'mcp',
    expiresWithSession: false,
  });
  at.resourceServer = new p.ResourceServer(resource, { audience: resource, scope: MCP_SCOPES.join(' '), accessTokenFormat: 'opaque' });
  return { token: await at.save(), grantId };
}

const delegate = (agent: oc.Configuration, subjectToken: string, scope?: string) =>
  oc.genericGrantRequest(agent, TOKEN_EXCHANGE_GRANT, {
    subject_token: subjectToken,
    subject_token_type: ACCESS_TOKEN_TYPE,
    ...(scope ? { scope } : {}),
  });

const inject = (base: string, token: string) => mcpCall(base, slug, token, 'tools/call', { name: 'svc_inject', arguments: {} });

test('a delegated token calls the gateway at no more than its level, on its project only, and carries its chain', async () => {
  const parent = await personToken();
  const child = await delegate(agents[0]!, parent.token, 'mcp:read');
  const [gw] = gateways;
  assert.equal((await mcpCall(gw!.url, slug, child.access_token)).status, 200);
  // The parent (ADMIN) may write; the child asked for reading only.
  assert.notEqual((await inject(gw!.url, parent.token)).status, 403);
  const refused = await inject(gw!.url, child.access_token);
  assert.equal(refused.status, 403);
  assert.equal(refused.body.error?.data?.code, 'insufficient_scope');
  assert.equal((await mcpCall(gw!.url, otherSlug, child.access_token)).status, 401);
  const seen = await createOAuthTokenVerifier({ redis: client, baseUrl: config.baseUrl }).verify(child.access_token);
  assert.ok(seen && !('serviceAccount' in seen));
  assert.deepEqual(seen.chain, [agents[0]!.clientMetadata().client_id, 'svc-mcp']);
  assert.equal(seen.approvedLevel, 'VIEWER');
});

test('revoking the parent token at the auth-service ends its child and grandchild on every replica', async () => {
  const parent = await personToken();
  const child = await delegate(agents[0]!, parent.token);
  const grandchild = await delegate(agents[1]!, child.access_token, 'mcp:read');
  for (const gw of gateways)
    for (const t of [child.access_token, grandchild.access_token]) assert.equal((await mcpCall(gw.url, slug, t)).status, 200);
  const revoked = await fetch(`${config.authUrl}/api/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: parent.token, client_id: 'svc-mcp' }),
  });
  assert.equal(revoked.status, 200);
  for (const gw of gateways)
    for (const t of [child.access_token, grandchild.access_token])
      await waitFor(async () => (await mcpCall(gw.url, slug, t)).status === 401, {
        timeout: 1000,
        message: `${gw.url} to refuse a token delegated from a revoked one`,
      });
});

test("revoking the person's grant (authorized apps) ends what was delegated from it on every replica", async () => {
  const parent = await personToken();
  const child = await delegate(agents[0]!, parent.token);
  for (const gw of gateways) assert.equal((await mcpCall(gw.url, slug, child.access_token)).status, 200);
  await accounts.oauthGrants.revoke(parent.grantId);
  for (const gw of gateways)
    await waitFor(async () => (await mcpCall(gw.url, slug, child.access_token)).status === 401, {
      timeout: 1000,
      message: `${gw.url} to refuse a token whose parent's grant was revoked`,
    });
});
