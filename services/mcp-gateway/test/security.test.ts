/**
 * The shared security suite (docs/conventions.md "Tests"): every protected endpoint and method gets the same
 * credential cases: missing, malformed, unknown, revoked, expired, wrong project, wrong type.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateCredential } from '@svc/credentials';
import { testClock } from '@svc/testkit';
import { call, post, rpc, seed, startFixture, type GatewayFixture, type Seeded } from './support.ts';

// Follows real time; the expired-key cases move it past the key's lifetime instead of waiting.
const clock = testClock({ frozen: false });
let f: GatewayFixture;
let a: Seeded;
let b: Seeded;
let botKey: string;

before(async () => {
  f = await startFixture({}, { now: clock.now });
  a = await seed(f.accounts, { plan: 'TEAM' });
  b = await seed(f.accounts, { plan: 'TEAM' });
  botKey = (await f.accounts.bots.create({ workspace: a.workspace, name: 'ci' })).key.key;
});
after(() => f.close());

interface Endpoint {
  name: string;
  path: () => string;
  body: unknown;
  rest: boolean;
  /** Default POST. */
  method?: 'GET' | 'DELETE';
  /** An account route: any key of its owner works, so there is no "wrong project". */
  account?: boolean;
}

const endpoints: Endpoint[] = [
  {
    name: 'MCP initialize',
    path: () => `/mcp/${a.project}`,
    body: rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } }),
    rest: false,
  },
  { name: 'MCP ping', path: () => `/mcp/${a.project}`, body: rpc('ping'), rest: false },
  { name: 'MCP tools/list', path: () => `/mcp/${a.project}`, body: rpc('tools/list'), rest: false },
  { name: 'MCP tools/call', path: () => `/mcp/${a.project}`, body: call('svc_help'), rest: false },
  { name: 'MCP team tools/call', path: () => `/mcp/team/${a.workspace}`, body: call('svc_help'), rest: false },
  { name: 'REST project tool', path: () => `/api/v1/projects/${a.project}/tools/svc_help`, body: {}, rest: true },
  { name: 'REST team tool', path: () => `/api/v1/teams/${a.workspace}/tools/svc_help`, body: {}, rest: true },
  { name: 'REST GET /api/v1/me', path: () => '/api/v1/me', body: undefined, rest: true, method: 'GET', account: true },
  { name: 'REST GET /api/v1/projects', path: () => '/api/v1/projects', body: undefined, rest: true, method: 'GET', account: true },
  { name: 'REST DELETE /api/v1/me/key', path: () => '/api/v1/me/key', body: undefined, rest: true, method: 'DELETE', account: true },
];

/** One request to an endpoint of the table, with its method. */
async function send(ep: Endpoint, headers: Record<string, string>) {
  if (!ep.method) return post(f.url, ep.path(), ep.body, headers);
  const res = await fetch(f.url + ep.path(), { method: ep.method, headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: JSON.parse(text) };
}

/** The error part of a JSON-RPC or REST error body. */
interface ErrorBody {
  error?: { message?: string; code?: string; data?: { code?: string } };
}

function message(res: { body: ErrorBody | null }, rest: boolean): string | undefined {
  return rest ? res.body?.error?.message : res.body?.error?.message;
}

function dataCode(res: { body: ErrorBody | null }, rest: boolean): string | undefined {
  return rest ? res.body?.error?.code : res.body?.error?.data?.code;
}

for (const ep of endpoints) {
  describe(`security: ${ep.name}`, () => {
    const expect401 = async (headers: Record<string, string>, msg: string, code: string) => {
      const res = await send(ep, headers);
      assert.equal(res.status, 401, res.text);
      assert.equal(message(res, ep.rest), msg);
      assert.equal(dataCode(res, ep.rest), code);
      assert.ok(res.headers.get('www-authenticate')?.startsWith('Bearer'), 'a 401 carries WWW-Authenticate');
      if (!ep.rest) assert.equal(res.body.jsonrpc, '2.0');
      assert.doesNotMatch(res.text, /at .*\.(ts|js):\d+/, 'no stack trace');
    };

    test('missing credentials', () => expect401({}, 'Missing authentication', 'missing_authentication'));
    test('empty X-API-Key header', () => expect401({ 'X-API-Key': '' }, 'Missing authentication', 'missing_authentication'));
    test('malformed key (bad checksum)', () =>
      expect401({ 'X-API-Key': 'svc-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, 'Invalid API key', 'invalid_api_key'));
    test('garbage bearer', () => expect401({ Authorization: 'Bearer not-a-credential' }, 'Invalid API key', 'invalid_api_key'));
    test('unknown key of a valid shape', () =>
      expect401({ 'X-API-Key': generateCredential('project_key') }, 'Invalid API key', 'invalid_api_key'));
    test('unknown OAuth access token', () =>
      expect401({ Authorization: `Bearer ${generateCredential('access_token')}` }, 'Invalid OAuth token', 'invalid_token'));
    test('malformed OAuth token', () =>
      expect401({ Authorization: 'Bearer svc_at_notarealtoken' }, 'Invalid OAuth token', 'invalid_token'));
    test('refresh token used as a bearer (wrong type)', () =>
      expect401({ Authorization: `Bearer ${generateCredential('refresh_token')}` }, 'Invalid OAuth token', 'invalid_token'));
    test('revoked key', async () => {
      const k = await f.accounts.keys.createProjectKey({ project: a.project, workspace: a.workspace, level: 'ADMIN', name: 'r' });
      await f.accounts.keys.revoke(k.id);
      await expect401({ 'X-API-Key': k.key }, 'Invalid API key', 'invalid_api_key');
    });
    test('expired key', async () => {
      const k = await f.accounts.keys.createProjectKey({
        project: a.project,
        workspace: a.workspace,
        level: 'ADMIN',
        name: 'x',
        expiresInSeconds: 1,
      });
      clock.advance(1_000);
      await expect401({ 'X-API-Key': k.key }, 'Invalid API key', 'invalid_api_key');
    });
    if (!ep.account) {
      test("another project's key (wrong project)", () => expect401({ 'X-API-Key': b.key }, 'Invalid API key', 'invalid_api_key'));
    }
    test('the key sent as a bearer works like X-API-Key', async () => {
      // DELETE /me/key revokes what it is given: a key of its own.
      const own =
        ep.method === 'DELETE' && (await f.accounts.keys.createProjectKey({ project: a.project, workspace: a.workspace, name: 'own' }));
      const key = own ? own.key : ep.path().includes('team') ? botKey : a.key;
      const res = await send(ep, { Authorization: `Bearer ${key}` });
      assert.equal(res.status, 200, res.text);
    });
  });
}

test('security: a project key on the team endpoint is the wrong type', async () => {
  const res = await post(f.url, `/mcp/team/${a.workspace}`, call('svc_help'), { 'X-API-Key': a.key });
  assert.equal(res.status, 401);
  assert.equal(res.body.error.message, 'Invalid API key');
});

test("security: a bot key of another workspace on this team's endpoint is refused", async () => {
  const other = (await f.accounts.bots.create({ workspace: b.workspace, name: 'other' })).key.key;
  const res = await post(f.url, `/mcp/team/${a.workspace}`, call('svc_help'), { 'X-API-Key': other });
  assert.equal(res.status, 401);
});

test('security: the 401 challenge names the protected resource metadata (RFC 9728)', async () => {
  const res = await post(f.url, `/mcp/${a.project}`, rpc('ping'));
  const h = res.headers.get('www-authenticate') ?? '';
  assert.match(h, new RegExp(`resource_metadata="${f.url}/.well-known/oauth-protected-resource/mcp/${a.project}"`));
  const bad = await post(f.url, `/mcp/${a.project}`, rpc('ping'), { Authorization: `Bearer ${generateCredential('access_token')}` });
  assert.match(bad.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
});

test('security: legacy keys can be turned off', async () => {
  const off = await startFixture({ LEGACY_CREDENTIALS: 'off' });
  try {
    const s = await seed(off.accounts);
    const legacy = await off.accounts.keys.issue({ kind: 'legacy_project_key', name: 'l', project: s.project, workspace: s.workspace });
    const res = await post(off.url, `/mcp/${s.project}`, rpc('ping'), { 'X-API-Key': legacy.key });
    assert.equal(res.status, 401);
    assert.equal(res.body.error.message, 'Invalid API key');
  } finally {
    await off.close();
  }
});
