/**
 * OAuth scopes at the gateway (docs/contract.md "OAuth scopes and refresh"; docs/auth-service.md
 * "Scopes"): a token acts at the lowest of the person's role, the level approved on the consent
 * page (the Grant's scope for the resource; VIEWER when it records none) and its own scope; when
 * the approval or scope, not the role, refuses a call the answer is 403 insufficient_scope naming
 * the scope the call needs, on MCP and REST alike; a call the role refuses is 403 access_denied.
 * Tokens are planted as the auth-service stores them.
 */
import assert from 'node:assert/strict';
import { DENIAL_META_KEY } from '@svc/errors';
import { after, before, test } from 'node:test';
import { connectRedis, type Redis } from '@svc/accounts';
import { call, plantAccessToken, post, startFixture, type GatewayFixture } from './support.ts';

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

/** An access token of `accountId` for the project (support.ts plantAccessToken). */
const plantToken = (accountId: string, scope: string, grantScope: string | null = 'mcp:admin', slug = project) =>
  plantAccessToken(f, { accountId, scope, grantScope, project: slug });

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
  // The structured denial says the same as the challenge, on both doors (docs/errors.md "Structured denials").
  const envelope = {
    reason: 'insufficient_authorization',
    remediation: 'available',
    remediationHints: [{ type: 'authorization_remediation', scope: 'mcp:write' }],
  };
  assert.deepEqual(mcp.body.error.data._meta[DENIAL_META_KEY], envelope);
  assert.deepEqual(rest.body.error._meta[DENIAL_META_KEY], envelope);
});

test('mcp:write on an ADMIN: write tools are listed and not refused for scope', async () => {
  const token = await plantToken(ownerId, 'mcp:write');
  const res = await post(f.url, `/api/v1/projects/${project}/tools/svc_inject`, {}, { Authorization: `Bearer ${token}` });
  assert.notEqual(res.body?.error?.code, 'insufficient_scope');
  const tools = await post(f.url, `/mcp/${project}`, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { Authorization: `Bearer ${token}` });
  const names = (tools.body.result.tools as { name: string }[]).map((t) => t.name);
  assert.ok(names.includes('svc_inject'));
});

test('mcp and no scope leave the approved level; a call the role refuses is 403 access_denied', async () => {
  for (const scope of ['mcp', '']) {
    const token = await plantToken(ownerId, scope);
    const res = await post(f.url, `/api/v1/projects/${project}/tools/svc_inject`, {}, { Authorization: `Bearer ${token}` });
    assert.notEqual(res.body?.error?.code, 'insufficient_scope', scope);
    assert.notEqual(res.body?.error?.code, 'access_denied', scope);
  }
  const stranger = await plantToken(strangerId, 'mcp:read');
  const refused = await post(f.url, `/mcp/${project}`, call('svc_search', { query: 'x' }), { Authorization: `Bearer ${stranger}` });
  // MCP authorization, "Error Handling": 403 for insufficient permissions, as for a scope.
  assert.equal(refused.status, 403);
  assert.equal(refused.body.jsonrpc, '2.0');
  assert.equal(refused.body.id, 1);
  assert.equal(refused.body.error.code, -31010);
  assert.equal(refused.body.error.data.code, 'access_denied');
  assert.equal(refused.body.error.data.gate, 'level');
  assert.match(refused.body.error.data.remedy, /svc_request_access/);
});

/** svc_help's answer: its text and structured content. */
async function help(token: string, slug = project) {
  const res = await post(f.url, `/mcp/${slug}`, call('svc_help'), { Authorization: `Bearer ${token}` });
  assert.equal(res.status, 200, res.text);
  return { text: res.body.result.content[0].text as string, data: res.body.result.structuredContent as Record<string, unknown> };
}

// Every scope a client may ask for, against every level the person may approve: the level the
// Grant records caps the token even when the token's own scope holds no MCP scope.
const TOKEN_SCOPES = ['openid', '', 'mcp', 'mcp offline_access', 'openid email', 'unknown:scope'];
const APPROVED: { grant: string; level: string; writes: boolean }[] = [
  { grant: 'mcp:read', level: 'VIEWER', writes: false },
  { grant: 'mcp:write', level: 'EDITOR', writes: true },
];
for (const scope of TOKEN_SCOPES) {
  for (const approved of APPROVED) {
    test(`token scope "${scope}", ${approved.level} approved, on an ADMIN: acts at ${approved.level}`, async () => {
      const token = await plantToken(ownerId, scope, approved.grant);
      const said = await help(token);
      assert.equal(said.data['role'], approved.level);
      assert.equal(said.data['own_role'], 'ADMIN');
      assert.match(said.text, new RegExp(`role ${approved.level} \\(the level approved for this token; your own role is ADMIN\\)`));
      const inject = await post(f.url, `/mcp/${project}`, call('svc_inject', { content: 'x' }), { Authorization: `Bearer ${token}` });
      if (approved.writes) assert.notEqual(inject.body.error?.data?.code, 'insufficient_scope');
      else {
        assert.equal(inject.status, 403);
        assert.equal(inject.body.error.data.code, 'insufficient_scope');
        assert.equal(inject.headers.get('www-authenticate'), `Bearer error="insufficient_scope", scope="mcp:write", ${metadata()}`);
      }
      const admin = await post(f.url, `/api/v1/projects/${project}/tools/svc_swarm_create`, {}, { Authorization: `Bearer ${token}` });
      assert.equal(admin.status, 403, 'an ADMIN tool: never above the approved level');
      const manage = await fetch(`${f.url}/api/v1/projects/${project}/keys`, { headers: { Authorization: `Bearer ${token}` } });
      assert.equal(manage.status, 403, 'managing needs ADMIN approved');
    });
  }
}

test('a Grant that records no level (`mcp`, empty) acts at VIEWER, whatever the token scope; one that records nothing for the resource is refused', async () => {
  for (const scope of ['', 'mcp', 'mcp:admin']) {
    const token = await plantToken(ownerId, scope, null);
    const res = await post(f.url, `/mcp/${project}`, call('svc_help'), { Authorization: `Bearer ${token}` });
    assert.equal(res.status, 401, `a Grant without the resource, token scope ${scope}`);
    assert.match(res.headers.get('www-authenticate') ?? '', /invalid_token/);
  }
  for (const grantScope of ['mcp', '']) {
    for (const scope of ['', 'mcp', 'mcp:admin']) {
      const token = await plantToken(ownerId, scope, grantScope);
      assert.equal((await help(token)).data['role'], 'VIEWER', `grant ${grantScope} scope ${scope}`);
      const inject = await post(f.url, `/mcp/${project}`, call('svc_inject', { content: 'x' }), { Authorization: `Bearer ${token}` });
      assert.equal(inject.status, 403);
      assert.equal(inject.body.error.data.code, 'insufficient_scope');
    }
  }
});

test('ADMIN approved and no MCP scope in the token: the role decides, and the token may manage', async () => {
  const token = await plantToken(ownerId, 'openid', 'mcp:admin');
  const said = await help(token);
  assert.equal(said.data['role'], 'ADMIN');
  assert.equal(said.data['own_role'], undefined);
  const manage = await fetch(`${f.url}/api/v1/projects/${project}/keys`, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(manage.status, 200);
});

test('svc_help tells a person with role NONE nothing of the project plan', async () => {
  const stranger = await plantToken(strangerId, 'mcp:read', 'mcp:read');
  const said = await help(stranger);
  assert.equal(said.data['role'], 'NONE');
  assert.equal(said.data['plan'], undefined);
  assert.doesNotMatch(said.text, /plan|FREE|SOLO|PRO|TEAM|ENTERPRISE/);
  const owner = await help(await plantToken(ownerId, 'mcp:read', 'mcp:read'));
  assert.match(owner.text, /plan FREE/, 'a member is told');
});

test('a valid token at another project is told it is not valid there, not to refresh', async () => {
  const other = `other-${Math.random().toString(36).slice(2, 8)}`;
  const owner = (await f.accounts.users.get(ownerId))!;
  await f.accounts.workspaces.createProject({ slug: other, workspace: owner.workspace });
  const token = await plantToken(ownerId, 'mcp:read', 'mcp:read', other);
  const res = await post(f.url, `/mcp/${project}`, call('svc_help'), { Authorization: `Bearer ${token}` });
  assert.equal(res.status, 401);
  assert.equal(res.body.error.data.code, 'invalid_token');
  assert.doesNotMatch(res.body.error.data.remedy, /refresh/i);
  assert.match(res.body.error.data.remedy, /not for this project/);
  assert.match(res.body.error.data.remedy, new RegExp(`project ${project}`));
});
