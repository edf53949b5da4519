/**
 * The management API under /api/v1/ (docs/management.md "REST") on a running gateway and a real
 * Redis: each operation with the audit entries it leaves, the roll overlap and key expiry at the
 * gateway, the leaked-key report, the management bucket apart from tool traffic, and a
 * cross-tenant sweep of every route with credentials of another workspace, another project, each
 * level and a service account.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, test } from 'node:test';
import { AUDIT_EXPORT_END, K, oidcRecordKey, WINDOWS, SERVICE_ACCOUNT_KEY_LIMITS, TRUSTED_ISSUER_LIMITS } from '@svc/accounts';
import { waitFor } from '@svc/testkit';
import { MANAGEMENT_ROUTES } from '../src/rest/management-steps.ts';
import { checkAnswers, send, typedClient, type Answered } from './management-client.ts';
import { call, post, seed, startFixture, type GatewayFixture, type Seeded } from './support.ts';

let f: GatewayFixture;
let owner: Seeded;
let personal: string;

before(async () => {
  f = await startFixture();
  owner = await seed(f.accounts, { plan: 'TEAM' });
  personal = (await f.accounts.keys.createUserKey({ userId: owner.userId })).key;
});
after(() => f.close());

/** Every answer of the suite, checked against the OpenAPI document by the last test. */
const answered: Answered[] = [];

async function api(method: string, path: string, key: string | null, body?: unknown) {
  const res = await send(f.url, answered, method, path, key, body);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed response body: its shape is what the assertions check
  return { ...res, body: res.body as any };
}

const toolStatus = async (key: string, project = owner.project) =>
  (await post(f.url, `/mcp/${project}`, call('svc_help'), { 'X-API-Key': key })).status;

async function auditActions(workspace = owner.workspace, key = personal): Promise<string[]> {
  const r = await api('GET', `/api/v1/workspaces/${workspace}/audit?limit=500`, key);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.entries.map((e: { action: string }) => e.action);
}

test('keys: create (shown once), list without values, revoke reaches the gateway; each leaves its audit entry', async () => {
  const created = await api('POST', `/api/v1/projects/${owner.project}/keys`, personal, { name: 'ci', level: 'EDITOR', expires: '30d' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.match(created.body.key, /^svc-[0-9A-Za-z]{28}$/);
  assert.ok(Math.abs(Date.parse(created.body.expires_at) - Date.now() - 30 * 86_400_000) < 60_000);
  assert.equal(await toolStatus(created.body.key), 200);
  const list = await api('GET', `/api/v1/projects/${owner.project}/keys`, personal);
  assert.equal(list.status, 200);
  assert.ok(!JSON.stringify(list.body).includes(created.body.key), 'a listing never shows a key');
  const row = list.body.keys.find((k: { id: string }) => k.id === created.body.id);
  assert.deepEqual([row.name, row.level, row.status], ['ci', 'EDITOR', 'active']);
  assert.equal((await api('DELETE', `/api/v1/projects/${owner.project}/keys/${created.body.id}`, personal)).status, 200);
  await waitFor(async () => (await toolStatus(created.body.key)) === 401, { timeout: 1000, message: 'the revoked key to be refused' });
  const actions = await auditActions();
  assert.ok(actions.includes('key.created') && actions.includes('key.revoked'), actions.join(','));
  const entry = (await api('GET', `/api/v1/workspaces/${owner.workspace}/audit?action=key.created`, personal)).body.entries[0];
  assert.equal(entry.actor, owner.email);
  assert.match(entry.target, new RegExp(`key:${created.body.id}`));
  assert.ok(entry.requestId && entry.source, 'request id and source recorded');
  const exported = await fetch(`${f.url}/api/v1/workspaces/${owner.workspace}/audit?format=jsonl`, { headers: { 'x-api-key': personal } });
  assert.equal(exported.status, 200);
  assert.match(exported.headers.get('content-type') ?? '', /application\/x-ndjson/);
  const lines = (await exported.text()).trim().split('\n');
  assert.ok(lines.some((l) => l.includes(created.body.id)));
  assert.ok(!lines.some((l) => l.includes(created.body.key)), 'no key in the log');
  assert.deepEqual(JSON.parse(lines.at(-1)!), { [AUDIT_EXPORT_END]: true, entries: lines.length - 1 }, 'the closing line');
});

test('roll: the old key works until the overlap ends, not after; expiry in human units ends a key', async () => {
  const old = await f.accounts.keys.createProjectKey({
    project: owner.project,
    workspace: owner.workspace,
    level: 'VIEWER',
    name: 'rolling',
  });
  const rolled = await api('POST', `/api/v1/projects/${owner.project}/keys/${old.id}/roll`, personal, { overlap: '2s' });
  assert.equal(rolled.status, 201, JSON.stringify(rolled.body));
  assert.equal(await toolStatus(rolled.body.key), 200);
  assert.equal(await toolStatus(old.key), 200, 'during the overlap both work');
  await waitFor(async () => (await toolStatus(old.key)) === 401, { timeout: 4000, message: 'the old key to stop when the overlap ends' });
  assert.equal(await toolStatus(rolled.body.key), 200);
  assert.ok((await auditActions()).includes('key.rolled'));

  const short = await api('POST', `/api/v1/projects/${owner.project}/keys`, personal, { name: 'brief', level: 'VIEWER', expires: '2s' });
  assert.equal(await toolStatus(short.body.key), 200);
  await waitFor(async () => (await toolStatus(short.body.key)) === 401, { timeout: 4000, message: 'the key to expire' });
  const bad = await api('POST', `/api/v1/projects/${owner.project}/keys`, personal, { name: 'x', level: 'VIEWER', expires: 'soon' });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, 'invalid_params');
  assert.match(bad.body.error.message, /e\.g\. 90m, 12h, 30d or 4w/);
});

test("roll: the old key's end is reported as it is (its own expiry when sooner than the overlap); an expired key is not rolled", async () => {
  const soon = await f.accounts.keys.createProjectKey({
    project: owner.project,
    workspace: owner.workspace,
    level: 'VIEWER',
    name: 'ends-soon',
    expiresInSeconds: 3600,
  });
  const rolled = await api('POST', `/api/v1/projects/${owner.project}/keys/${soon.id}/roll`, personal, { overlap: '24h' });
  assert.equal(rolled.status, 201, JSON.stringify(rolled.body));
  const end = Date.parse(rolled.body.old_key_until);
  assert.ok(
    Math.abs(end - (Date.now() + 3600_000)) < 60_000,
    `the old key ends in an hour, not after the 24 h overlap: ${rolled.body.old_key_until}`,
  );
  const listed = (await api('GET', `/api/v1/projects/${owner.project}/keys`, personal)).body.keys.find(
    (k: { id: string }) => k.id === soon.id,
  );
  assert.equal(listed.expires_at, rolled.body.old_key_until, 'the listing and the roll agree');

  const brief = await f.accounts.keys.createProjectKey({
    project: owner.project,
    workspace: owner.workspace,
    level: 'VIEWER',
    name: 'ended',
    expiresInSeconds: 1,
  });
  await waitFor(async () => (await toolStatus(brief.key)) === 401, { timeout: 4000, message: 'the key to expire' });
  const refused = await api('POST', `/api/v1/projects/${owner.project}/keys/${brief.id}/roll`, personal, { overlap: '24h' });
  assert.equal(refused.status, 409, JSON.stringify(refused.body));
  assert.match(refused.body.error.message, /expired/);
  assert.equal(await toolStatus(brief.key), 401, 'the roll did not bring it back');
});

test('names: control, invisible and direction-changing characters are refused for keys, projects and service accounts', async () => {
  const hostile = [
    'ci\u001b[2Jkey',
    'line\nbreak',
    'carriage\rreturn',
    'tab\there',
    'no\u00a0break',
    'zero\u200bwidth',
    'evil\u202eyek',
    'c1\u009bx',
    'b\ufeffom',
  ];
  for (const name of hostile) {
    const routes: [string, Record<string, unknown>][] = [
      [`/api/v1/projects/${owner.project}/keys`, { name, level: 'VIEWER' }],
      [`/api/v1/workspaces/${owner.workspace}/projects`, { name }],
      [`/api/v1/workspaces/${owner.workspace}/service-accounts`, { name }],
    ];
    for (const [path, body] of routes) {
      const r = await api('POST', path, personal, body);
      assert.equal(r.status, 400, `${path} ${JSON.stringify(name)}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.field, 'name');
      assert.match(r.body.error.message, /control characters|invisible or direction-changing/);
    }
  }
  const fine = await api('POST', `/api/v1/projects/${owner.project}/keys`, personal, { name: 'déploiement 日本 🚀', level: 'VIEWER' });
  assert.equal(fine.status, 201, JSON.stringify(fine.body));
});

test('access requests: a project ADMIN key approves at a level; a second decision is a conflict', async () => {
  const asker = await seed(f.accounts);
  const adminKey = (
    await f.accounts.keys.createProjectKey({ project: owner.project, workspace: owner.workspace, level: 'ADMIN', name: 'admin' })
  ).key;
  const req = await f.accounts.accessRequests.create({
    project: owner.project,
    requester: { type: 'user', id: asker.userId, label: asker.email },
    requestedLevel: 'ADMIN',
    reason: 'please',
  });
  const list = await api('GET', `/api/v1/projects/${owner.project}/access-requests`, adminKey);
  assert.equal(list.status, 200);
  assert.equal(list.body.requests.find((r: { id: string }) => r.id === req.id).status, 'pending');
  const ok = await api('POST', `/api/v1/projects/${owner.project}/access-requests/${req.id}/approve`, adminKey, { level: 'VIEWER' });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  const project = (await f.accounts.workspaces.getProject(owner.project))!;
  assert.equal(await f.accounts.workspaces.roleOf(asker.userId, project), 'VIEWER');
  const again = await api('POST', `/api/v1/projects/${owner.project}/access-requests/${req.id}/deny`, adminKey, {});
  assert.equal(again.status, 409);
  const entry = (await api('GET', `/api/v1/workspaces/${owner.workspace}/audit?action=access_request.approved`, personal)).body.entries[0];
  assert.match(entry.actor, /^key:svc-/);
});

test('report-leak: the key is revoked, the answer is the same for an unknown key, and it is never limited', async () => {
  const leaked = await f.accounts.keys.createProjectKey({
    project: owner.project,
    workspace: owner.workspace,
    level: 'VIEWER',
    name: 'leaked',
  });
  const r = await api('POST', '/api/v1/keys/report-leak', null, { key: leaked.key });
  assert.equal(r.status, 202);
  await waitFor(async () => (await toolStatus(leaked.key)) === 401, { timeout: 1000, message: 'the reported key to be refused' });
  const unknown = await api('POST', '/api/v1/keys/report-leak', null, { key: 'svc-' + 'A'.repeat(28) });
  assert.deepEqual([unknown.status, unknown.body], [r.status, r.body]);
  assert.ok((await auditActions()).includes('key.reported'));
  assert.equal((await api('POST', '/api/v1/keys/report-leak', null, {})).status, 400);
});

test('the management bucket: 120 a minute, apart from tool calls; tools still pass when it is spent', async () => {
  const other = await seed(f.accounts, { plan: 'TEAM' });
  const key = (await f.accounts.keys.createUserKey({ userId: other.userId })).key;
  const statuses = await Promise.all(
    Array.from({ length: 125 }, () => api('GET', `/api/v1/projects/${other.project}/members`, key).then((r) => r.status)),
  );
  assert.equal(statuses.filter((s) => s === 200).length, 120);
  assert.equal(statuses.filter((s) => s === 429).length, 5);
  assert.equal(await toolStatus(other.key, other.project), 200, 'tool traffic is not in the management bucket');
  const limited = await api('GET', `/api/v1/projects/${other.project}/members`, key);
  assert.equal(limited.body.error.code, 'rate_limited');
  assert.ok(Number(limited.headers.get('retry-after')) >= 1);
});

test('cross-tenant: every route with credentials of another workspace, another project, each level and a service account', async () => {
  const stranger = await seed(f.accounts);
  const strangerPersonal = (await f.accounts.keys.createUserKey({ userId: stranger.userId })).key;
  const otherProjectAdmin = (
    await f.accounts.keys.createProjectKey({ project: stranger.project, workspace: stranger.workspace, level: 'ADMIN', name: 'a' })
  ).key;
  const viewer = (
    await f.accounts.keys.createProjectKey({ project: owner.project, workspace: owner.workspace, level: 'VIEWER', name: 'v' })
  ).key;
  const editor = (
    await f.accounts.keys.createProjectKey({ project: owner.project, workspace: owner.workspace, level: 'EDITOR', name: 'e' })
  ).key;
  const bot = await f.accounts.bots.create({ workspace: owner.workspace, name: 'ci' });
  await f.accounts.bots.grant(bot.bot.id, owner.project, 'ADMIN');
  const target = await f.accounts.keys.createProjectKey({
    project: owner.project,
    workspace: owner.workspace,
    level: 'ADMIN',
    name: 'target',
  });
  const request = await f.accounts.accessRequests.create({
    project: owner.project,
    requester: { type: 'user', id: stranger.userId, label: stranger.email },
    requestedLevel: 'ADMIN',
    reason: 'x',
  });
  const params: Record<string, string> = { project: owner.project, id: target.id, user: owner.userId, workspace: owner.workspace };
  const bodies: Record<string, unknown> = {
    keys: { name: 'x', level: 'ADMIN', expires: '1d' },
    roll: { overlap: '0m' },
    approve: { level: 'ADMIN' },
    members: { email: stranger.email, role: 'ADMIN' },
    [target.id]: { rate_limit: 5 },
    projects: { name: 'Intruder' },
    'service-accounts': { name: 'intruder' },
    grants: { project: owner.project, level: 'ADMIN' },
    'client-keys': { jwks_uri: 'https://intruder.example/jwks' },
    'trusted-issuers': { issuer: 'https://intruder.example', jwks_uri: 'https://intruder.example/jwks' },
  };
  const credentials: [string, string, (r: (typeof MANAGEMENT_ROUTES)[number]) => boolean][] = [
    // A person's own lists (apps, access requests) are theirs to read: not another tenant's.
    ['a personal key of another workspace', strangerPersonal, (r) => !(r.method === 'GET' && r.path.startsWith('/api/v1/me/'))],
    ["another project's ADMIN key", otherProjectAdmin, () => true],
    ['a service-account key with ADMIN on the project', bot.key.key, () => true],
    // A VIEWER key may read its project's keys and members; an EDITOR key may also create keys.
    ['a VIEWER key of the project', viewer, (r) => !(r.method === 'GET' && /\/(keys|members)$/.test(r.path))],
    [
      'an EDITOR key of the project',
      editor,
      (r) => !(r.method === 'GET' && /\/(keys|members)$/.test(r.path)) && !(r.method === 'POST' && r.path.endsWith('/keys')),
    ],
  ];
  for (const [who, key, refused] of credentials) {
    for (const r of MANAGEMENT_ROUTES) {
      if (!refused(r)) continue;
      const path = r.path.replace(/\{(\w+)\}/g, (_m, n: string) =>
        n === 'id' && r.path.includes('access-requests') ? request.id : params[n]!,
      );
      const last = path.split('/').at(-1)!;
      const res = await api(r.method, path, key, r.method === 'GET' || r.method === 'DELETE' ? undefined : (bodies[last] ?? {}));
      assert.ok([403, 404].includes(res.status), `${who}: ${r.method} ${path} answered ${res.status} ${JSON.stringify(res.body)}`);
    }
  }
  assert.equal((await f.accounts.keys.getById(target.id))?.revoked, false, 'the target key is untouched');
  assert.equal((await f.accounts.keys.getById(target.id))?.rateLimit, null, "the target key's limit is untouched");
  assert.equal((await f.accounts.bots.get(bot.bot.id))?.grants[owner.project], 'ADMIN');
  assert.equal((await f.accounts.bots.listForWorkspace(owner.workspace)).length, 1, 'no service account was created');
  assert.equal((await f.accounts.accessRequests.get(request.id))?.status, 'pending', 'the request is undecided');
  // An EDITOR key may not create ADMIN keys.
  const refusedLevel = await api('POST', `/api/v1/projects/${owner.project}/keys`, editor, { name: 'x', level: 'ADMIN' });
  assert.equal(refusedLevel.status, 400);
  assert.match(refusedLevel.body.error.message, /Your role \(EDITOR\) can create VIEWER or EDITOR keys/);
});

test('wrong method, bad JSON and no credential get their REST errors', async () => {
  const wrong = await api('PUT', `/api/v1/projects/${owner.project}/keys`, personal, {});
  assert.equal(wrong.status, 405);
  assert.match(wrong.headers.get('allow') ?? '', /GET, POST/);
  const broken = await fetch(`${f.url}/api/v1/projects/${owner.project}/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': personal },
    body: '{"name":',
  });
  assert.equal(broken.status, 400);
  assert.equal(((await broken.json()) as { error: { code: string } }).error.code, 'parse_error');
  assert.equal((await api('GET', `/api/v1/projects/${owner.project}/keys`, null)).status, 401);
});

test('the OpenAPI document lists every management route', async () => {
  const doc = (await (await fetch(`${f.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  for (const r of MANAGEMENT_ROUTES) assert.ok(doc.paths[r.path]?.[r.method.toLowerCase()], `${r.method} ${r.path}`);
  assert.ok(doc.paths['/api/v1/keys/report-leak']?.['post']);
});

test("a key's own rate limit: below the plan's, refuses that key alone, and is audited", async () => {
  const ci = await api('POST', `/api/v1/projects/${owner.project}/keys`, personal, { name: 'ci-bot', level: 'VIEWER', rate_limit: 3 });
  assert.equal(ci.status, 201, JSON.stringify(ci.body));
  assert.equal(ci.body.rate_limit, 3);
  const other = (await api('POST', `/api/v1/projects/${owner.project}/keys`, personal, { name: 'people', level: 'VIEWER' })).body.key;
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push(await toolStatus(ci.body.key));
  assert.deepEqual(statuses, [200, 200, 200, 429]);
  const refused = await post(f.url, `/mcp/${owner.project}`, call('svc_help'), { 'X-API-Key': ci.body.key });
  assert.match(refused.body.error.message, /this key may make 3 requests per minute/);
  assert.equal(refused.headers.get('x-ratelimit-limit'), '3');
  assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  assert.equal(await toolStatus(other), 200, 'another key of the workspace is not held back');

  const tooHigh = await api('PATCH', `/api/v1/projects/${owner.project}/keys/${ci.body.id}`, personal, { rate_limit: 1_000_000 });
  assert.equal(tooHigh.status, 400);
  assert.equal(tooHigh.body.error.field, 'rateLimit');
  assert.match(tooHigh.body.error.message, /from 1 to \d+ \(the TEAM plan's limit\)/);
  const missing = await api('PATCH', `/api/v1/projects/${owner.project}/keys/${ci.body.id}`, personal, {});
  assert.equal(missing.status, 400);
  const lifted = await api('PATCH', `/api/v1/projects/${owner.project}/keys/${ci.body.id}`, personal, { rate_limit: null });
  assert.equal(lifted.status, 200, JSON.stringify(lifted.body));
  assert.equal(lifted.body.rate_limit, null);
  await waitFor(async () => (await toolStatus(ci.body.key)) === 200, { timeout: 1000, message: 'the lifted limit to reach the gateway' });
  const row = (await api('GET', `/api/v1/projects/${owner.project}/keys`, personal)).body.keys.find(
    (k: { id: string }) => k.id === ci.body.id,
  );
  assert.equal(row.rate_limit, null);
  assert.ok((await auditActions()).includes('key.limit_changed'));
});

test('usage: this month per key and per tool, counted by the rate-limit script itself', async () => {
  const u = await seed(f.accounts, { plan: 'TEAM' });
  const mine = (await f.accounts.keys.createUserKey({ userId: u.userId })).key;
  const a = await f.accounts.keys.createProjectKey({ project: u.project, workspace: u.workspace, level: 'VIEWER', name: 'alpha' });
  const b = await f.accounts.keys.createProjectKey({ project: u.project, workspace: u.workspace, level: 'VIEWER', name: 'beta' });
  for (let i = 0; i < 3; i++) assert.equal(await toolStatus(a.key, u.project), 200);
  assert.equal(await toolStatus(b.key, u.project), 200);
  const list = await post(f.url, `/mcp/${u.project}`, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'X-API-Key': b.key });
  assert.equal(list.status, 200);
  const usage = await api('GET', `/api/v1/workspaces/${u.workspace}/usage`, mine);
  assert.equal(usage.status, 200, JSON.stringify(usage.body));
  const perKey = Object.fromEntries(usage.body.perKey.map((k: { name: string; count: number }) => [k.name, k.count]));
  assert.deepEqual(perKey, { alpha: 3, beta: 2 }, 'every admitted request counts for its key');
  assert.deepEqual(usage.body.perTool, [{ tool: 'svc_help', count: 4 }], 'tools/call counts for its tool; tools/list for none');
  assert.equal(usage.body.minute.used, 5);
});

test('service accounts over REST: create, grant, call, rotate, revoke, each audited', async () => {
  const created = await api('POST', `/api/v1/workspaces/${owner.workspace}/service-accounts`, personal, { name: 'deploy-bot' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.match(created.body.key, /^svc-bot-/);
  const id = created.body.id;
  // A refusal by role is a JSON-RPC error in a 403 answer (docs/errors.md): read its code.
  const search = async (key: string) => {
    const r = await post(f.url, `/mcp/${owner.project}`, call('svc_search', { query: 'x' }), { 'X-API-Key': key });
    return r.status === 403 && r.body.error ? r.body.error.data.code : r.status;
  };
  assert.equal(await search(created.body.key), 'access_denied', 'no grant yet: no role on the project');
  const grant = await api('POST', `/api/v1/workspaces/${owner.workspace}/service-accounts/${id}/grants`, personal, {
    project: owner.project,
    level: 'VIEWER',
  });
  assert.equal(grant.status, 200, JSON.stringify(grant.body));
  await waitFor(async () => (await search(created.body.key)) === 200, { timeout: 1000, message: 'the grant to reach the gateway' });
  const listed = await api('GET', `/api/v1/workspaces/${owner.workspace}/service-accounts`, personal);
  const row = listed.body.service_accounts.find((x: { id: string }) => x.id === id);
  assert.deepEqual(row.grants, { [owner.project]: 'VIEWER' });
  const rotated = await api('POST', `/api/v1/workspaces/${owner.workspace}/service-accounts/${id}/rotate`, personal);
  assert.equal(rotated.status, 201);
  await waitFor(async () => (await toolStatus(created.body.key)) === 401, { timeout: 1000, message: 'the old key to stop' });
  assert.equal(await toolStatus(rotated.body.key), 200);
  assert.equal((await api('DELETE', `/api/v1/workspaces/${owner.workspace}/service-accounts/${id}`, personal)).status, 200);
  await waitFor(async () => (await toolStatus(rotated.body.key)) === 401, { timeout: 1000, message: 'the revoked account to stop' });
  const actions = await auditActions();
  for (const a of ['service_account.created', 'service_account.granted', 'service_account.key_rotated', 'service_account.revoked'])
    assert.ok(actions.includes(a), a);
});

test("a service account's OAuth client keys over REST: set (JWK Set or URL), show, remove, each audited; bad keys are 400s naming the problem", async () => {
  // A workspace of its own: the management bucket (120 a minute per workspace) is not this suite's.
  const ws = await seed(f.accounts, { plan: 'TEAM' });
  const personal = (await f.accounts.keys.createUserKey({ userId: ws.userId })).key;
  const { bot } = await f.accounts.bots.create({ workspace: ws.workspace, name: 'cc-bot' });
  const path = `/api/v1/workspaces/${ws.workspace}/service-accounts/${bot.id}/client-keys`;
  const pub = (kid: string) => ({ ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }), kid });
  const empty = await api('GET', path, personal);
  assert.equal(empty.status, 200, JSON.stringify(empty.body));
  assert.deepEqual(
    { client_id: empty.body.client_id, jwks: empty.body.jwks, jwks_uri: empty.body.jwks_uri },
    { client_id: bot.id, jwks: null, jwks_uri: null },
  );
  assert.match(empty.body.token_endpoint, /\/api\/oauth\/token$/);

  const set = await api('POST', path, personal, { jwks: { keys: [pub('k1'), pub('k2')] } });
  assert.equal(set.status, 200, JSON.stringify(set.body));
  assert.deepEqual(
    set.body.jwks.keys.map((k: { kid: string }) => k.kid),
    ['k1', 'k2'],
  );
  assert.deepEqual((await f.accounts.serviceAccountClients.clientMetadata(bot.id))?.jwks?.keys.length, 2, 'the client exists');
  assert.deepEqual((await api('GET', path, personal)).body.jwks, set.body.jwks);

  // Each bound of SERVICE_ACCOUNT_KEY_LIMITS, and what is never a public key, is a 400 naming it.
  const tooMany = Array.from({ length: SERVICE_ACCOUNT_KEY_LIMITS.maxKeys + 1 }, (_, i) => pub(`k${i}`));
  const refusals: [unknown, RegExp][] = [
    [{ jwks: { keys: tooMany } }, /must NOT have more than 5 items/],
    [{ jwks: { keys: [{ ...pub('k1'), d: 'secret' }] } }, /private or symmetric key material/],
    [{ jwks: { keys: [pub('x'.repeat(SERVICE_ACCOUNT_KEY_LIMITS.maxKidLength + 1))] } }, /must NOT have more than 128 characters/],
    [{ jwks_uri: `https://idp.example/${'x'.repeat(SERVICE_ACCOUNT_KEY_LIMITS.maxJwksUriLength)}` }, /jwks_uri/],
    [{ jwks_uri: 'http://idp.example/jwks' }, /https/],
    [{ jwks: { keys: [pub('k1')] }, jwks_uri: 'https://idp.example/jwks' }, /not both/],
    [{}, /either jwks/],
  ];
  for (const [body, message] of refusals) {
    const r = await api('POST', path, personal, body);
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.match(JSON.stringify(r.body.error), message);
  }
  assert.equal((await api('GET', path, personal)).body.jwks.keys.length, 2, 'a refused set changed nothing');

  const byUrl = await api('POST', path, personal, { jwks_uri: 'https://ci.example/.well-known/jwks.json' });
  assert.equal(byUrl.status, 200, JSON.stringify(byUrl.body));
  assert.deepEqual([byUrl.body.jwks, byUrl.body.jwks_uri], [null, 'https://ci.example/.well-known/jwks.json']);

  const removed = await api('DELETE', path, personal);
  assert.deepEqual(removed.body, { id: bot.id, removed: true });
  assert.equal(await f.accounts.serviceAccountClients.clientMetadata(bot.id), null, 'the client is gone');
  assert.equal((await api('DELETE', path, personal)).body.removed, false);
  const actions = await auditActions(ws.workspace, personal);
  assert.equal(actions.filter((a) => a === 'service_account.client_keys_set').length, 2);
  assert.equal(actions.filter((a) => a === 'service_account.client_keys_removed').length, 1);
  // Only the workspace's owner: a project ADMIN key of the workspace is refused.
  const admin = (await f.accounts.keys.createProjectKey({ project: ws.project, workspace: ws.workspace, level: 'ADMIN', name: 'a' })).key;
  assert.equal((await api('POST', path, admin, { jwks: { keys: [pub('k1')] } })).status, 403);
  assert.equal((await api('GET', path, admin)).status, 403);
});

test('trusted identity providers over REST: add (JWK Set or URL), list, remove, each audited; at most maxIssuers; bad input is a 400 naming it', async () => {
  const ws = await seed(f.accounts, { plan: 'TEAM' });
  const personal = (await f.accounts.keys.createUserKey({ userId: ws.userId })).key;
  const path = `/api/v1/workspaces/${ws.workspace}/trusted-issuers`;
  const jwks = { keys: [{ ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }), kid: 'idp-1' }] };
  const added = await api('POST', path, personal, { issuer: 'https://idp.example', jwks });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  assert.equal(added.body.issuer, 'https://idp.example');
  const again = await api('POST', path, personal, { issuer: 'https://idp.example', jwks_uri: 'https://idp.example/jwks' });
  assert.equal(again.status, 201, 'the same issuer again replaces its keys');
  assert.deepEqual([again.body.id, again.body.jwks, again.body.jwks_uri], [added.body.id, null, 'https://idp.example/jwks']);
  for (let i = 1; i < TRUSTED_ISSUER_LIMITS.maxIssuers; i++)
    assert.equal((await api('POST', path, personal, { issuer: `https://idp${i}.example`, jwks })).status, 201);
  const over = await api('POST', path, personal, { issuer: 'https://one-more.example', jwks });
  assert.equal(over.status, 409, JSON.stringify(over.body));
  assert.match(over.body.error.message, /at most 5 identity providers/);
  const listed = await api('GET', path, personal);
  assert.equal(listed.body.trusted_issuers.length, TRUSTED_ISSUER_LIMITS.maxIssuers);

  const refusals: [unknown, RegExp][] = [
    [{ issuer: 'http://idp.example', jwks }, /Issuer must be an https URL/],
    [{ issuer: 'https://idp.example/?tenant=1', jwks }, /query or a fragment/],
    [{ issuer: `https://idp.example/${'x'.repeat(TRUSTED_ISSUER_LIMITS.maxIssuerLength)}`, jwks }, /more than 2048 characters/],
    [{ issuer: 'https://idp.example' }, /either jwks/],
    [{ issuer: 'https://idp.example', jwks: { keys: [{ kty: 'oct', kid: 'k', k: 'c2VjcmV0' }] } }, /private or symmetric/],
  ];
  for (const [body, message] of refusals) {
    const r = await api('POST', path, personal, body);
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.match(JSON.stringify(r.body.error), message);
  }
  const removed = await api('DELETE', `${path}/${added.body.id}`, personal);
  assert.deepEqual(removed.body, { id: added.body.id, removed: true });
  assert.equal((await api('DELETE', `${path}/${added.body.id}`, personal)).status, 404);
  assert.equal(await f.accounts.trustedIssuers.find(ws.workspace, 'https://idp.example'), null);
  const actions = await auditActions(ws.workspace, personal);
  assert.equal(actions.filter((a) => a === 'trusted_issuer.added').length, TRUSTED_ISSUER_LIMITS.maxIssuers + 1);
  assert.equal(actions.filter((a) => a === 'trusted_issuer.removed').length, 1);
  const admin = (await f.accounts.keys.createProjectKey({ project: ws.project, workspace: ws.workspace, level: 'ADMIN', name: 'a' })).key;
  assert.equal((await api('GET', path, admin)).status, 403);
});

test('every answer of this suite fits the OpenAPI document, and every operation answered a success', async () => {
  // The suite above makes more management requests of this workspace than one minute's bucket
  // holds (the cross-tenant sweep alone sends every route with three of its credentials): this
  // test starts a fresh count, as the next minute would.
  const minute = WINDOWS.minute(Date.now());
  await f.redis.client.del(K.rateManagement(owner.workspace, minute), K.rateManagement(owner.workspace, minute - 1));
  // The operations the tests above never saw succeed, through the typed client.
  const client = typedClient(f.url, personal, answered);
  const body = { name: 'Contract check' };
  const made = await client.createProject({ params: { workspace: owner.workspace }, body });
  assert.ok(made.ok, JSON.stringify(made.response.body));
  const asker = await seed(f.accounts);
  const refused = await seed(f.accounts);
  const ask = (who: Seeded) =>
    f.accounts.accessRequests.create({
      project: owner.project,
      requester: { type: 'user', id: who.userId, label: who.email },
      requestedLevel: 'VIEWER',
      reason: 'contract',
    });
  const denied = await ask(refused);
  const approved = await ask(asker);
  const listed = await client.listAccessRequests({ params: { project: owner.project } });
  assert.ok(listed.ok && listed.body.requests.some((r) => r.id === denied.id));
  assert.ok((await client.denyAccessRequest({ params: { project: owner.project, id: denied.id }, body: {} })).ok);
  assert.ok((await client.approveAccessRequest({ params: { project: owner.project, id: approved.id }, body: {} })).ok);
  const removed = await client.removeMember({ params: { project: owner.project, user: asker.userId } });
  assert.ok(removed.ok, JSON.stringify(removed.response.body));
  const added = await client.putMember({ params: { project: owner.project }, body: { email: refused.email, role: 'EDITOR' } });
  assert.equal(added.status, 201, JSON.stringify(added.response.body));
  const askerKey = (await f.accounts.keys.createUserKey({ userId: asker.userId })).key;
  const asAsker = typedClient(f.url, askerKey, answered);
  const mine = await asAsker.myAccessRequests({});
  assert.ok(mine.ok && mine.body.requests[0]?.status === 'approved', JSON.stringify(mine.response.body));
  // An OAuth grant as oidc-provider stores it (docs/redis-schema.md), to list and revoke.
  const grantId = `grant-${Date.now()}`;
  const grant = { kind: 'Grant', accountId: asker.userId, clientId: 'svc-cli', iat: Math.floor(Date.now() / 1000) };
  const resources = { [`${f.url}/mcp/${owner.project}`]: 'mcp' };
  await f.redis.client.hset(oidcRecordKey('Grant', grantId), 'payload', JSON.stringify({ ...grant, resources }));
  await f.accounts.oauthGrants.index(asker.userId, grantId, 3600);
  const apps = await asAsker.myApps({});
  assert.ok(apps.ok && apps.body.apps.some((a) => a.id === grantId), JSON.stringify(apps.response.body));
  assert.ok((await asAsker.revokeApp({ params: { id: grantId } })).ok);
  const second = await f.accounts.keys.createUserKey({ userId: asker.userId });
  assert.ok((await asAsker.revokePersonalKey({ params: { id: second.id } })).ok);
  const email = 'invited-contract@example.com';
  await f.accounts.invitations.create({ project: owner.project, email, role: 'VIEWER', invitedBy: owner.email });
  const members = await client.listMembers({ params: { project: owner.project } });
  const pending = members.ok ? members.body.invitations.find((i) => i.email === email) : undefined;
  assert.ok(pending, 'the invitation is listed');
  assert.ok((await client.cancelInvitation({ params: { project: owner.project, id: pending.id } })).ok);

  const succeeded = await checkAnswers(f.url, answered);
  const missing = MANAGEMENT_ROUTES.filter((r) => !succeeded.has(r.id)).map((r) => r.id);
  assert.deepEqual(missing, [], 'operations no test saw succeed');
});
