/**
 * MCP 2026-07-28 beside the earlier revisions on the same endpoint (docs/mcp-revisions.md): the
 * per-request choice of rules, the mirrored headers, the caching hints, the error codes, and the
 * probes that once reached Object.prototype or another key family. Plus who pays for a request.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call, post, rpc, seed, startFixture, type GatewayFixture, type Seeded } from './support.ts';

const V = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} };
let f: GatewayFixture;
let s: Seeded;

before(async () => {
  f = await startFixture();
  s = await seed(f.accounts, { plan: 'PRO' });
});
after(() => f.close());

/** A 2026-07-28 request: _meta in params, MCP-Protocol-Version and Mcp-Method (and Mcp-Name) headers. */
function modern(method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}, id: number | string = 1) {
  const name: Record<string, string> = typeof params['name'] === 'string' ? { 'Mcp-Name': params['name'] } : {};
  return post(
    f.url,
    `/mcp/${s.project}`,
    { jsonrpc: '2.0', id, method, params: { ...params, _meta: META } },
    { 'X-API-Key': s.key, 'MCP-Protocol-Version': V, 'Mcp-Method': method, ...name, ...headers },
  );
}

test('server/discover: versions, capabilities with the authorization extensions, serverInfo, resultType and caching hints', async () => {
  const res = await modern('server/discover');
  assert.equal(res.status, 200);
  const r = res.body.result;
  assert.equal(r.resultType, 'complete');
  assert.deepEqual(r.supportedVersions.slice(0, 2), ['2026-07-28', '2025-11-25']);
  assert.ok(r.capabilities.tools);
  // The authorization extensions svc implements and MCP Tasks (a call held for an approval:
  // docs/approvals.md), as MCP 2026-07-28 `ServerCapabilities.extensions` shapes them: identifier
  // -> settings object (none: `{}`).
  assert.deepEqual(r.capabilities.extensions, {
    'io.modelcontextprotocol/oauth-client-credentials': {},
    'io.modelcontextprotocol/enterprise-managed-authorization': {},
    'io.modelcontextprotocol/structured-authorization-denials': {},
    'io.modelcontextprotocol/tasks': {},
  });
  assert.equal(r._meta['io.modelcontextprotocol/serverInfo'].name, 'svc');
  assert.equal(typeof r.ttlMs, 'number');
  assert.equal(r.cacheScope, 'private');
});

test('tools/list and tools/call under 2026-07-28: deterministic order, hints, serverInfo on every result', async () => {
  const list = await modern('tools/list');
  assert.equal(list.status, 200);
  const names = list.body.result.tools.map((t: { name: string }) => t.name);
  assert.deepEqual(names, [...names].sort(), 'tools come sorted by name');
  assert.equal(list.body.result.cacheScope, 'private');
  assert.ok(list.body.result.ttlMs >= 0);
  const called = await modern('tools/call', { name: 'svc_help', arguments: {} });
  assert.equal(called.status, 200);
  assert.equal(called.body.result.resultType, 'complete');
  assert.ok(called.body.result.content.length > 0);
  assert.equal(called.body.result.ttlMs, undefined, 'only lists carry caching hints');
  assert.ok(called.headers.get('x-ratelimit-remaining'), 'rate-limit headers as in every revision');
});

test('answers kept as text (tools/list, server/discover, svc_help) are the same in both eras and per caller', async () => {
  const modernList = await modern('tools/list', {}, {}, 'b');
  const legacyList = await post(f.url, `/mcp/${s.project}`, rpc('tools/list', {}, 'a'), { 'X-API-Key': s.key });
  assert.equal(legacyList.body.id, 'a', 'the envelope carries each request its own id');
  assert.equal(modernList.body.id, 'b');
  const { resultType, _meta, ttlMs, cacheScope, ...rest } = modernList.body.result;
  assert.deepEqual(rest, legacyList.body.result, 'the 2026-07-28 result is the same list with its own members');
  assert.deepEqual(
    [resultType, cacheScope, typeof ttlMs, typeof _meta['io.modelcontextprotocol/serverInfo']],
    ['complete', 'private', 'number', 'object'],
  );
  assert.equal(legacyList.body.result.resultType, undefined, 'a kept answer is not changed by a 2026-07-28 request');
  const twice = [await modern('server/discover', {}, {}, 7), await modern('server/discover', {}, {}, 8)];
  assert.deepEqual(twice[0]!.body.result, twice[1]!.body.result);
  // svc_help is kept per caller: another key of the same project gets its own label.
  const other = await f.accounts.keys.createProjectKey({ project: s.project, workspace: s.workspace, level: 'VIEWER', name: 'other' });
  const help = async (key: string) =>
    (await post(f.url, `/mcp/${s.project}`, call('svc_help'), { 'X-API-Key': key })).body.result.content[0].text as string;
  const [first, again, theOther] = [await help(s.key), await help(s.key), await help(other.key)];
  assert.equal(first, again);
  assert.notEqual(first, theOther);
  assert.match(theOther, /you are other \(/);
});

test('credentials come first: no key under 2026-07-28 is the 401 challenge with scope="mcp"', async () => {
  const res = await post(
    f.url,
    `/mcp/${s.project}`,
    { jsonrpc: '2.0', id: 3, method: 'server/discover', params: { _meta: META } },
    {
      'MCP-Protocol-Version': V,
      'Mcp-Method': 'server/discover',
    },
  );
  assert.equal(res.status, 401);
  assert.equal(res.body.id, 3, 'the id is echoed');
  const challenge = res.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/mcp\//);
  assert.match(challenge, /scope="mcp"/);
  assert.equal(res.body.error.code, -31001);
});

test('mirrored headers: missing or different Mcp-Method / Mcp-Name / version is 400 -32020 echoing the id', async () => {
  const cases: [string, Record<string, string>, Record<string, unknown>][] = [
    ['tools/list', { 'Mcp-Method': 'tools/call' }, {}],
    ['tools/call', { 'Mcp-Name': 'svc_search' }, { name: 'svc_help', arguments: {} }],
    ['tools/list', { 'MCP-Protocol-Version': '2025-11-25' }, {}],
    ['tools/call', { 'Mcp-Name': '=?base64?not base64?=' }, { name: 'svc_help', arguments: {} }],
  ];
  for (const [method, headers, params] of cases) {
    const res = await modern(method, params, headers, 'abc');
    assert.equal(res.status, 400, JSON.stringify(headers));
    assert.equal(res.body.error.code, -32020);
    assert.equal(res.body.id, 'abc');
  }
  const noMethodHeader = await post(
    f.url,
    `/mcp/${s.project}`,
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } },
    {
      'X-API-Key': s.key,
      'MCP-Protocol-Version': V,
    },
  );
  assert.equal(noMethodHeader.status, 400);
  assert.match(noMethodHeader.body.error.message, /Mcp-Method header is missing/);
  // MCP 2026-07-28 "Value Encoding": a base64-sentinel Mcp-Name is decoded before comparing; values are trimmed.
  const encoded = `=?base64?${Buffer.from('svc_help').toString('base64')}?=`;
  assert.equal((await modern('tools/call', { name: 'svc_help', arguments: {} }, { 'Mcp-Name': encoded })).status, 200);
  assert.equal((await modern('tools/list', {}, { 'Mcp-Method': '  tools/list ' })).status, 200);
});

test('versions and _meta: unsupported -32022 with data.supported; missing keys -32602; all HTTP 400', async () => {
  const future = await post(
    f.url,
    `/mcp/${s.project}`,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
    },
    { 'X-API-Key': s.key, 'MCP-Protocol-Version': '2099-01-01', 'Mcp-Method': 'tools/list' },
  );
  assert.equal(future.status, 400);
  assert.equal(future.body.error.code, -32022);
  assert.ok(future.body.error.data.supported.includes(V));
  assert.equal(future.body.error.data.requested, '2099-01-01');
  const noMeta = await post(f.url, `/mcp/${s.project}`, rpc('tools/list'), {
    'X-API-Key': s.key,
    'MCP-Protocol-Version': V,
    'Mcp-Method': 'tools/list',
  });
  assert.equal(noMeta.status, 400);
  assert.equal(noMeta.body.error.code, -32602);
  const noCaps = await post(
    f.url,
    `/mcp/${s.project}`,
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': V } } },
    { 'X-API-Key': s.key, 'MCP-Protocol-Version': V, 'Mcp-Method': 'tools/list' },
  );
  assert.equal(noCaps.status, 400);
  assert.equal(noCaps.body.error.code, -32602);
});

test('removed methods are unknown under 2026-07-28 (404, -32601); the earlier revisions keep them', async () => {
  for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/list']) {
    const res = await modern(method);
    assert.equal(res.status, 404, method);
    assert.equal(res.body.error.code, -32601);
  }
  const init = await post(
    f.url,
    `/mcp/${s.project}`,
    rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } }),
    { 'X-API-Key': s.key },
  );
  assert.equal(init.status, 200);
  assert.equal(init.body.result.protocolVersion, '2025-11-25');
  assert.equal(init.body.result.resultType, undefined, 'earlier-era results are unchanged');
  assert.equal(
    (await post(f.url, `/mcp/${s.project}`, rpc('ping'), { 'X-API-Key': s.key, 'MCP-Protocol-Version': '2025-06-18' })).status,
    200,
  );
});

test('method names that are Object.prototype members are unknown methods, in both eras', async () => {
  for (const method of ['constructor', '__proto__', 'valueOf', 'toString', 'hasOwnProperty']) {
    const legacy = await post(f.url, `/mcp/${s.project}`, rpc(method, { x: 1 }), { 'X-API-Key': s.key });
    assert.equal(legacy.status, 200, method);
    assert.equal(legacy.body.error.code, -32601, method);
    const res = await modern(method);
    assert.equal(res.status, 404, method);
    assert.equal(res.body.error.code, -32601, method);
  }
});

test('slugs are checked before any Redis key is built: proj:keys is a 404, not another key family', async () => {
  for (const slug of [`${s.project}:keys`, `${s.project}%3Akeys`, 'UPPER', 'a', `${'x'.repeat(70)}`]) {
    const res = await post(f.url, `/mcp/${slug}`, rpc('tools/list'), { 'X-API-Key': s.key });
    assert.equal(res.status, 404, slug);
  }
  const prm = await fetch(`${f.url}/.well-known/oauth-protected-resource/mcp/%E0%A4%A`);
  assert.ok(prm.status === 404 || prm.status === 400, `bad percent-encoding in the PRM path: ${prm.status}`);
});

test('a refused call consumes nothing: bad arguments, unknown tools and policy refusals are free', async () => {
  const fresh = await seed(f.accounts, { level: 'VIEWER' });
  const remaining = async () =>
    Number(
      (await post(f.url, `/mcp/${fresh.project}`, rpc('tools/list'), { 'X-API-Key': fresh.key })).headers.get('x-ratelimit-remaining'),
    );
  const before = await remaining();
  await post(f.url, `/mcp/${fresh.project}`, call('svc_search', { query: 42 }), { 'X-API-Key': fresh.key });
  await post(f.url, `/mcp/${fresh.project}`, call('svc_nope'), { 'X-API-Key': fresh.key });
  await post(f.url, `/mcp/${fresh.project}`, call('svc_upload_document', { name: 'a.md', content: 'x' }), { 'X-API-Key': fresh.key });
  await post(f.url, `/mcp/${fresh.project}`, rpc('nope/nope'), { 'X-API-Key': fresh.key });
  assert.equal(await remaining(), before - 1, 'only the two tools/list calls counted');
});

test('who pays: a personal key with role NONE is charged to its own workspace, not the project owner', async () => {
  const outsider = await f.accounts.users.create({
    emailVerified: true,
    email: `outsider-${Date.now()}@example.com`,
    password: 'correct horse battery',
  });
  const personal = await f.accounts.keys.createUserKey({ userId: outsider.id });
  // The project's workspace is PRO; the outsider's personal workspace is FREE (30 a minute).
  const res = await post(f.url, `/mcp/${s.project}`, call('svc_help'), { 'X-API-Key': personal.key });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('x-ratelimit-limit'), '30', 'the FREE plan of the caller’s own workspace');
  const owner = await post(f.url, `/mcp/${s.project}`, call('svc_help'), { 'X-API-Key': s.key });
  assert.notEqual(owner.headers.get('x-ratelimit-limit'), '30', 'the project key is charged to the PRO workspace');
});

test('DELETE /api/v1/me/key is never refused for a limit; the account routes take the same pipeline', async () => {
  const w = await seed(f.accounts);
  let status = 0;
  for (let i = 0; i < 100 && status !== 429; i++)
    status = (await post(f.url, `/mcp/${w.project}`, rpc('tools/list'), { 'X-API-Key': w.key })).status;
  assert.equal(status, 429, 'the FREE workspace reached its limit');
  assert.equal((await fetch(`${f.url}/api/v1/me`, { headers: { 'X-API-Key': w.key } })).status, 429, 'reads are limited');
  const del = await fetch(`${f.url}/api/v1/me/key`, { method: 'DELETE', headers: { 'X-API-Key': w.key } });
  assert.equal(del.status, 200);
  const after = await fetch(`${f.url}/api/v1/me`, { headers: { 'X-API-Key': w.key } });
  assert.equal(after.status, 401);
  assert.match(after.headers.get('www-authenticate') ?? '', /Bearer realm="svc"/);
});
