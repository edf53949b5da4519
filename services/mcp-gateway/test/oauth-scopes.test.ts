/**
 * OAuth scopes at the gateway (docs/contract.md "OAuth scopes and refresh"): a token acts at the
 * lower of the person's role and its scope; when the scope, not the role, refuses a call the
 * answer is 403 insufficient_scope naming the scope the call needs, on MCP and REST alike; a call
 * the role refuses stays access_denied. Tokens are planted as the auth-service stores them.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connectRedis, oidcRecordKey, type Redis } from '@svc/accounts';
import { generateCredential } from '@svc/credentials';
import { call, post, startFixture, type GatewayFixture } from './support.ts';

let f: GatewayFixture;
let redis: Redis;
let project: string;
let ownerId: string;
let strangerId: string;

before(async () => {
  f = await startFixture({ RATE_LIMIT_SCALE: '1000' });
  redis = connectRedis(f.redis.url, { name: 'scopes-test' });
  const tag = Math.random().toString(36).slice(2, 8);
  const owner = await f.accounts.users.create({
    emailVerified: true,
    email: `owner-${tag}@example.com`,
    password: 'correct horse battery',
  });
  const stranger = await f.accounts.users.create({
    emailVerified: true,
    email: `stranger-${tag}@example.com`,
    password: 'correct horse battery',
  });
  project = `scopes-${tag}`;
  await f.accounts.workspaces.createProject({ slug: project, workspace: owner.workspace });
  ownerId = owner.id;
  strangerId = stranger.id;
});
after(async () => {
  redis.disconnect();
  await f.close();
});

/** An access token record as oidc-provider stores it (docs/redis-schema.md), with its grant. */
async function plantToken(accountId: string, scope: string): Promise<string> {
  const token = generateCredential('access_token');
  const grantId = `grant-${Math.random().toString(36).slice(2)}`;
  await redis.hset(oidcRecordKey('Grant', grantId), 'payload', JSON.stringify({ kind: 'Grant', accountId }));
  const payload = {
    kind: 'AccessToken',
    jti: token,
    exp: Math.floor(Date.now() / 1000) + 3600,
    accountId,
    clientId: 'registered-client',
    grantId,
    aud: `${f.config.baseUrl}/mcp/${project}`,
    scope,
  };
  await redis.hset(oidcRecordKey('AccessToken', token), 'payload', JSON.stringify(payload));
  return token;
}

const metadata = () => `resource_metadata="${f.config.baseUrl}/.well-known/oauth-protected-resource/mcp/${project}"`;

test('mcp:read on an ADMIN: read tools run, a write tool is 403 insufficient_scope on MCP and REST', async () => {
  const token = await plantToken(ownerId, 'mcp:read');
  const auth = { Authorization: `Bearer ${token}` };
  assert.equal((await post(f.url, `/mcp/${project}`, call('svc_help'), auth)).status, 200);
  const mcp = await post(f.url, `/mcp/${project}`, call('svc_inject', {}), auth);
  assert.equal(mcp.status, 403);
  assert.equal(mcp.body.error.code, -31011);
  assert.equal(mcp.body.error.data.code, 'insufficient_scope');
  assert.equal(mcp.headers.get('www-authenticate'), `Bearer error="insufficient_scope", scope="mcp:write", ${metadata()}`);
  const rest = await post(f.url, `/api/v1/projects/${project}/tools/svc_inject`, {}, auth);
  assert.equal(rest.status, 403);
  assert.equal(rest.body.error.code, 'insufficient_scope');
  assert.equal(rest.headers.get('www-authenticate'), `Bearer error="insufficient_scope", scope="mcp:write", ${metadata()}`);
});

test('mcp:write on an ADMIN: write tools are listed and not refused for scope', async () => {
  const token = await plantToken(ownerId, 'mcp:write');
  const res = await post(f.url, `/api/v1/projects/${project}/tools/svc_inject`, {}, { Authorization: `Bearer ${token}` });
  assert.notEqual(res.body?.error?.code, 'insufficient_scope');
  const tools = await post(f.url, `/mcp/${project}`, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { Authorization: `Bearer ${token}` });
  const names = (tools.body.result.tools as { name: string }[]).map((t) => t.name);
  assert.ok(names.includes('svc_inject'));
});

test('mcp and no scope leave the role; a call the role refuses stays access_denied', async () => {
  for (const scope of ['mcp', '']) {
    const token = await plantToken(ownerId, scope);
    const res = await post(f.url, `/api/v1/projects/${project}/tools/svc_inject`, {}, { Authorization: `Bearer ${token}` });
    assert.notEqual(res.body?.error?.code, 'insufficient_scope', scope);
    assert.notEqual(res.body?.error?.code, 'access_denied', scope);
  }
  const stranger = await plantToken(strangerId, 'mcp:read');
  const refused = await post(f.url, `/mcp/${project}`, call('svc_search', { query: 'x' }), { Authorization: `Bearer ${stranger}` });
  assert.equal(refused.status, 200);
  assert.equal(refused.body.error.data.code, 'access_denied');
});
