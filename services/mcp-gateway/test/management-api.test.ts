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
import {
  AUDIT_EXPORT_END,
  K,
  oidcRecordKey,
  SERVICE_ACCOUNT_KEY_LIMITS,
  TRUSTED_ISSUER_LIMITS,
  GITHUB_ACTIONS_ISSUER,
  WORKLOAD_ISSUER_LIMITS,
  USAGE_HISTORY_DAYS,
  WINDOWS,
} from '@svc/accounts';
import { sampleOf, waitFor } from '@svc/testkit';
import { WEBHOOK_DESCRIPTION_MAX, WEBHOOK_MAX_ENDPOINTS, WEBHOOK_URL_MAX } from '@svc/webhooks';
import { MANAGEMENT_ROUTES } from '../src/rest/management-steps.ts';
import { checkAnswers, refusal, send, success, typedClient, type Answered } from './management-client.ts';
import { call, post, seed, startFixture, startPlainUpstream, type GatewayFixture, type Seeded } from './support.ts';

let f: GatewayFixture;
let owner: Seeded;
let personal: string;
/** The typed client of the management API with the owner's personal key. */
let me: ReturnType<typeof typedClient>;

/** The DNS TXT records the gateway reads for single sign-on's domain proofs (no outbound lookups). */
const dns = new Map<string, string[][]>();

before(async () => {
  f = await startFixture({ UPSTREAM_ALLOWED_PRIVATE: '127.0.0.1/32' }, { resolveTxt: async (name) => dns.get(name) ?? [] });
  owner = await seed(f.accounts, { plan: 'TEAM' });
  personal = (await f.accounts.keys.createUserKey({ userId: owner.userId })).key;
  me = typedClient(f.url, personal, answered);
});
after(() => f.close());

/** Every answer of the suite, checked against the OpenAPI document by the last test. */
const answered: Answered[] = [];

/** A request outside the declared operations (a wrong method, a route sweep), its answer as it came. */
const api = (method: string, path: string, key: string | null, body?: unknown) => send(f.url, answered, method, path, key, body);

/** The typed client with `key`: requests and answers typed by the contract's declarations. */
const as = (key: string | null) => typedClient(f.url, key, answered);

const toolStatus = async (key: string, project = owner.project) =>
  (await post(f.url, `/mcp/${project}`, call('svc_help'), { 'X-API-Key': key })).status;

async function auditActions(workspace = owner.workspace, client = me): Promise<string[]> {
  const r = success(await client.audit({ params: { workspace }, query: { limit: 500 } }));
  return r.body.entries.map((e) => e.action);
}

test('keys: create (shown once), list without values, revoke reaches the gateway; each leaves its audit entry', async () => {
  const project = { project: owner.project };
  const created = success(await me.createKey({ params: project, body: { name: 'ci', level: 'EDITOR', expires: '30d' } }), 201);
  assert.match(created.body.key, /^svc-[0-9A-Za-z]{28}$/);
  assert.ok(Math.abs(Date.parse(created.body.expires_at ?? '') - Date.now() - 30 * 86_400_000) < 60_000);
  assert.equal(await toolStatus(created.body.key), 200);
  const list = success(await me.listKeys({ params: project }));
  assert.ok(!JSON.stringify(list.body).includes(created.body.key), 'a listing never shows a key');
  const row = list.body.keys.find((k) => k.id === created.body.id);
  assert.deepEqual([row?.name, row?.level, row?.status], ['ci', 'EDITOR', 'active']);
  success(await me.revokeKey({ params: { ...project, id: created.body.id } }));
  await waitFor(async () => (await toolStatus(created.body.key)) === 401, { timeout: 1000, message: 'the revoked key to be refused' });
  const actions = await auditActions();
  assert.ok(actions.includes('key.created') && actions.includes('key.revoked'), actions.join(','));
  const entry = success(await me.audit({ params: { workspace: owner.workspace }, query: { action: 'key.created' } })).body.entries[0];
  assert.ok(entry, 'the creation is audited');
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

test('audit filters over REST: by person, action and time range, and the export of the filtered view; a bad filter is a 400 naming it', async () => {
  const u = await seed(f.accounts, { plan: 'TEAM' });
  const mine = (await f.accounts.keys.createUserKey({ userId: u.userId })).key;
  const base = `/api/v1/workspaces/${u.workspace}/audit`;
  const note = (actor: string, action: 'key.created' | 'member.added', n: number) =>
    f.accounts.audit.record({ workspace: u.workspace, actor, action, target: `t${n}`, source: '127.0.0.1', requestId: `r${n}` });
  await note('ada@example.com', 'key.created', 1);
  await note('bob@example.com', 'key.created', 2);
  await note('ada@example.com', 'member.added', 3);
  const log = (query: Record<string, string>) => as(mine).audit({ params: { workspace: u.workspace }, query });
  const ada = success(await log({ actor: 'ADA@example.com' }));
  assert.deepEqual(
    ada.body.entries.map((e) => e.target),
    ['t3', 't1'],
    'the person, case aside, newest first',
  );
  const adaKeys = success(await log({ actor: 'ada@example.com', action: 'key.created' }));
  assert.deepEqual(
    adaKeys.body.entries.map((e) => e.target),
    ['t1'],
  );
  const today = new Date().toISOString().slice(0, 10);
  assert.equal(success(await log({ actor: 'ada@example.com', from: today, to: today })).body.entries.length, 2);
  assert.equal(success(await log({ actor: 'ada@example.com', to: '2020-01-01' })).body.entries.length, 0, 'nothing that old');
  const exported = await fetch(`${f.url}${base}?format=jsonl&actor=ada@example.com&from=${today}`, { headers: { 'x-api-key': mine } });
  assert.equal(exported.status, 200);
  const lines = (await exported.text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(
    lines.slice(0, -1).map((l) => l['target']),
    ['t1', 't3'],
    'the export holds the filtered view, oldest first',
  );
  assert.deepEqual(lines.at(-1), { [AUDIT_EXPORT_END]: true, entries: 2 });
  const bad: [Record<string, string>, string][] = [
    [{ from: 'yesterday' }, 'from'],
    [{ to: '2026-02-31' }, 'to'],
    [{ from: '2026-03-02', to: '2026-03-01' }, 'to'],
    [{ actor: 'a'.repeat(321) }, 'actor'],
    [{ format: 'jsonl', from: '12' }, 'from'],
  ];
  for (const [query, field] of bad) {
    const r = refusal(await log(query), 400);
    assert.equal(r.field, field, `${JSON.stringify(query)}: ${JSON.stringify(r)}`);
  }
});

test('roll: the old key works until the overlap ends, not after; expiry in human units ends a key', async () => {
  const old = await f.accounts.keys.createProjectKey({
    project: owner.project,
    workspace: owner.workspace,
    level: 'VIEWER',
    name: 'rolling',
  });
  const rolled = success(await me.rollKey({ params: { project: owner.project, id: old.id }, body: { overlap: '2s' } }), 201);
  assert.equal(await toolStatus(rolled.body.key), 200);
  assert.equal(await toolStatus(old.key), 200, 'during the overlap both work');
  await waitFor(async () => (await toolStatus(old.key)) === 401, { timeout: 4000, message: 'the old key to stop when the overlap ends' });
  assert.equal(await toolStatus(rolled.body.key), 200);
  assert.ok((await auditActions()).includes('key.rolled'));

  const short = success(
    await me.createKey({ params: { project: owner.project }, body: { name: 'brief', level: 'VIEWER', expires: '2s' } }),
  );
  assert.equal(await toolStatus(short.body.key), 200);
  await waitFor(async () => (await toolStatus(short.body.key)) === 401, { timeout: 4000, message: 'the key to expire' });
  const bad = refusal(
    await me.createKey({ params: { project: owner.project }, body: { name: 'x', level: 'VIEWER', expires: 'soon' } }),
    400,
  );
  assert.equal(bad.code, 'invalid_params');
  assert.match(bad.message, /e\.g\. 90m, 12h, 30d or 4w/);
});

test("roll: the old key's end is reported as it is (its own expiry when sooner than the overlap); an expired key is not rolled", async () => {
  const soon = await f.accounts.keys.createProjectKey({
    project: owner.project,
    workspace: owner.workspace,
    level: 'VIEWER',
    name: 'ends-soon',
    expiresInSeconds: 3600,
  });
  const rolled = success(await me.rollKey({ params: { project: owner.project, id: soon.id }, body: { overlap: '24h' } }), 201);
  const end = Date.parse(rolled.body.old_key_until ?? '');
  assert.ok(
    Math.abs(end - (Date.now() + 3600_000)) < 60_000,
    `the old key ends in an hour, not after the 24 h overlap: ${rolled.body.old_key_until}`,
  );
  const listed = success(await me.listKeys({ params: { project: owner.project } })).body.keys.find((k) => k.id === soon.id);
  assert.equal(listed?.expires_at, rolled.body.old_key_until, 'the listing and the roll agree');

  const brief = await f.accounts.keys.createProjectKey({
    project: owner.project,
    workspace: owner.workspace,
    level: 'VIEWER',
    name: 'ended',
    expiresInSeconds: 1,
  });
  await waitFor(async () => (await toolStatus(brief.key)) === 401, { timeout: 4000, message: 'the key to expire' });
  const refused = refusal(await me.rollKey({ params: { project: owner.project, id: brief.id }, body: { overlap: '24h' } }), 409);
  assert.match(refused.message, /expired/);
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
    for (const called of [
      await me.createKey({ params: { project: owner.project }, body: { name, level: 'VIEWER' } }),
      await me.createProject({ params: { workspace: owner.workspace }, body: { name } }),
      await me.createServiceAccount({ params: { workspace: owner.workspace }, body: { name } }),
    ]) {
      const r = refusal(called, 400);
      assert.equal(r.field, 'name', JSON.stringify(name));
      assert.match(r.message, /control characters|invisible or direction-changing/);
    }
  }
  success(await me.createKey({ params: { project: owner.project }, body: { name: 'déploiement 日本 🚀', level: 'VIEWER' } }), 201);
});

test('access requests: a project ADMIN key approves at a level; a second decision is a conflict', async () => {
  const asker = await seed(f.accounts);
  const adminKey = (
    await f.accounts.keys.createProjectKey({ project: owner.project, workspace: owner.workspace, level: 'ADMIN', name: 'admin' })
  ).key;
  const req = await f.accounts.accessRequests.create(
    {
      project: owner.project,
      requester: { type: 'user', id: asker.userId, label: asker.email },
      requestedLevel: 'ADMIN',
      reason: 'please',
    },
    { source: '192.0.2.1', requestId: 'test' },
  );
  const admin = as(adminKey);
  const list = success(await admin.listAccessRequests({ params: { project: owner.project } }));
  assert.equal(list.body.requests.find((r) => r.id === req.id)?.status, 'pending');
  success(await admin.approveAccessRequest({ params: { project: owner.project, id: req.id }, body: { level: 'VIEWER' } }), 200);
  const project = (await f.accounts.workspaces.getProject(owner.project))!;
  assert.equal(await f.accounts.workspaces.roleOf(asker.userId, project), 'VIEWER');
  refusal(await admin.denyAccessRequest({ params: { project: owner.project, id: req.id }, body: {} }), 409);
  const audited = await me.audit({ params: { workspace: owner.workspace }, query: { action: 'access_request.approved' } });
  assert.match(success(audited).body.entries[0]?.actor ?? '', /^key:svc-/);
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
  const theirs = as((await f.accounts.keys.createUserKey({ userId: other.userId })).key);
  const statuses = await Promise.all(
    Array.from({ length: 125 }, () => theirs.listMembers({ params: { project: other.project } }).then((r) => r.status)),
  );
  assert.equal(statuses.filter((s) => s === 200).length, 120);
  assert.equal(statuses.filter((s) => s === 429).length, 5);
  assert.equal(await toolStatus(other.key, other.project), 200, 'tool traffic is not in the management bucket');
  const limited = await theirs.listMembers({ params: { project: other.project } });
  assert.equal(refusal(limited, 429).code, 'rate_limited');
  assert.ok(!limited.ok && Number(limited.response.headers.get('retry-after')) >= 1);
});

test('cross-tenant: every route with credentials of another workspace, another project, each level and a service account', async () => {
  // A workspace of its own: the sweep alone spends most of a workspace's management bucket.
  const owner = await seed(f.accounts, { plan: 'TEAM' });
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
  const request = await f.accounts.accessRequests.create(
    {
      project: owner.project,
      requester: { type: 'user', id: stranger.userId, label: stranger.email },
      requestedLevel: 'ADMIN',
      reason: 'x',
    },
    { source: '192.0.2.1', requestId: 'test' },
  );
  const held = await f.accounts.approvals.create(
    {
      project: owner.project,
      workspace: owner.workspace,
      tool: 'notes__read_notes',
      arguments: {},
      caller: { type: 'key', id: target.id, label: 'target', clientId: `svc-key:${target.id}` },
    },
    { source: '192.0.2.1', requestId: 'test' },
  );
  const params: Record<string, string> = {
    project: owner.project,
    id: target.id,
    user: owner.userId,
    workspace: owner.workspace,
    name: 'notes',
    tool: 'read_notes',
  };
  const bodies: Record<string, unknown> = {
    keys: { name: 'x', level: 'ADMIN', expires: '1d' },
    roll: { overlap: '0m' },
    approve: { level: 'ADMIN' },
    'factor-policy': { required: true },
    members: { email: stranger.email, role: 'ADMIN' },
    [target.id]: { rate_limit: 5 },
    projects: { name: 'Intruder' },
    'service-accounts': { name: 'intruder' },
    grants: { project: owner.project, level: 'ADMIN' },
    'access-requests': { level: 'ADMIN', reason: 'x' },
    note: { note: 'intruder' },
    'allowed-ips': { allowed_ips: ['192.0.2.1'] },
    'client-keys': { jwks_uri: 'https://intruder.example/jwks' },
    'trusted-issuers': { issuer: 'https://intruder.example', jwks_uri: 'https://intruder.example/jwks' },
    'workload-issuers': { kind: 'github-actions', rules: [{ service_account: bot.bot.id, claims: { repository: 'intruder/repo' } }] },
    'client-policy': { mode: 'open' },
    webhooks: { url: 'https://intruder.example/hook', events: ['key.created'] },
    'webhooks/{id}': { enabled: true },
    'approvals/{id}/approve': { call_hash: held.callHash },
    upstreams: { name: 'intruder', url: 'https://intruder.example/mcp' },
    notes: { timeout_ms: 5_000 },
    read_notes: { level: 'VIEWER' },
  };
  // Asking for access is open to anyone who can name the project (its point), for themselves:
  // only a key of another project is refused; the request decides nothing.
  const asks = (r: (typeof MANAGEMENT_ROUTES)[number]) => r.id === 'requestAccess';
  const credentials: [string, string, (r: (typeof MANAGEMENT_ROUTES)[number]) => boolean][] = [
    // A person's own lists (apps, access requests) are theirs to read: not another tenant's.
    ['a personal key of another workspace', strangerPersonal, (r) => !(r.method === 'GET' && r.path.startsWith('/api/v1/me/')) && !asks(r)],
    ["another project's ADMIN key", otherProjectAdmin, () => true],
    ['a service-account key with ADMIN on the project', bot.key.key, (r) => !asks(r)],
    // A VIEWER key may read its project's keys and members; an EDITOR key may also create keys.
    ['a VIEWER key of the project', viewer, (r) => !(r.method === 'GET' && /\/(keys|members)$/.test(r.path)) && !asks(r)],
    [
      'an EDITOR key of the project',
      editor,
      (r) => !(r.method === 'GET' && /\/(keys|members)$/.test(r.path)) && !(r.method === 'POST' && r.path.endsWith('/keys')) && !asks(r),
    ],
  ];
  for (const [who, key, refused] of credentials) {
    // Each credential's sweep sends every route once: more than one minute's management bucket
    // holds now that the contract has grown, so each starts a fresh count, as the next minute would.
    for (const bucket of await f.redis.client.keys('svc:rl:{*}:mgmt:*')) await f.redis.client.del(bucket);
    for (const r of MANAGEMENT_ROUTES) {
      // Single sign-on's routes have their own sweep (sso-api.test.ts): here they would spend the
      // owner's management bucket that the tests below still need.
      if (!refused(r) || r.path.includes('/sso')) continue;
      const path = r.path.replace(/\{(\w+)\}/g, (_m, n: string) =>
        n === 'id' && r.path.includes('access-requests') ? request.id : n === 'id' && r.path.includes('/approvals/') ? held.id : params[n]!,
      );
      // A webhook's PATCH path also ends in the id: its body is a webhook change (it admits no other
      // field); an approval's approve names the call's hash, an access request's the level.
      const last = r.path.endsWith('/webhooks/{id}')
        ? 'webhooks/{id}'
        : r.path.endsWith('/approvals/{id}/approve')
          ? 'approvals/{id}/approve'
          : path.split('/').at(-1)!;
      // An operation with no body of its own here is sent a sample of its declared body: a route
      // declared later is swept the day it is declared.
      // A path ending in a parameter another route shares (a tool's name) takes the sample too.
      const own = r.path.endsWith('/{tool}') && !r.path.includes('/upstreams/');
      const body = (own ? undefined : bodies[last]) ?? (r.declaration.body ? sampleOf(r.declaration.body) : {});
      const res = await api(r.method, path, key, r.method === 'GET' || r.method === 'DELETE' ? undefined : body);
      assert.ok([403, 404].includes(res.status), `${who}: ${r.method} ${path} answered ${res.status} ${JSON.stringify(res.body)}`);
    }
  }
  assert.equal((await f.accounts.keys.getById(target.id))?.revoked, false, 'the target key is untouched');
  assert.equal((await f.accounts.keys.getById(target.id))?.rateLimit, null, "the target key's limit is untouched");
  const untouched = await f.accounts.keys.getById(target.id);
  assert.deepEqual(
    [untouched?.disabled, untouched?.note, untouched?.allowedIps],
    [false, '', []],
    "the target key's controls are untouched",
  );
  assert.equal((await f.accounts.bots.get(bot.bot.id))?.grants[owner.project], 'ADMIN');
  assert.equal((await f.accounts.bots.listForWorkspace(owner.workspace)).length, 1, 'no service account was created');
  assert.equal((await f.accounts.accessRequests.get(request.id))?.status, 'pending', 'the request is undecided');
  assert.equal((await f.accounts.approvals.get(owner.project, held.id))?.status, 'pending', 'the held call is undecided');
  // An EDITOR key may not create ADMIN keys.
  const refusedLevel = refusal(
    await as(editor).createKey({ params: { project: owner.project }, body: { name: 'x', level: 'ADMIN' } }),
    400,
  );
  assert.match(refusedLevel.message, /Your role \(EDITOR\) can create VIEWER or EDITOR keys/);
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
  refusal(await as(null).listKeys({ params: { project: owner.project } }), 401);
});

test('the OpenAPI document lists every management route', async () => {
  const doc = (await (await fetch(`${f.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  for (const r of MANAGEMENT_ROUTES) assert.ok(doc.paths[r.path]?.[r.method.toLowerCase()], `${r.method} ${r.path}`);
  assert.ok(doc.paths['/api/v1/keys/report-leak']?.['post']);
});

test("a key's own rate limit: below the plan's, refuses that key alone, and is audited", async () => {
  const project = { project: owner.project };
  const ci = success(await me.createKey({ params: project, body: { name: 'ci-bot', level: 'VIEWER', rate_limit: 3 } }), 201);
  assert.equal(ci.body.rate_limit, 3);
  const other = success(await me.createKey({ params: project, body: { name: 'people', level: 'VIEWER' } })).body.key;
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push(await toolStatus(ci.body.key));
  assert.deepEqual(statuses, [200, 200, 200, 429]);
  const refused = await post(f.url, `/mcp/${owner.project}`, call('svc_help'), { 'X-API-Key': ci.body.key });
  assert.match(refused.body.error.message, /this key may make 3 requests per minute/);
  assert.equal(refused.headers.get('x-ratelimit-limit'), '3');
  assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  assert.equal(await toolStatus(other), 200, 'another key of the workspace is not held back');

  const key = { ...project, id: ci.body.id };
  const tooHigh = refusal(await me.setKeyLimit({ params: key, body: { rate_limit: 1_000_000 } }), 400);
  assert.equal(tooHigh.field, 'rateLimit');
  assert.match(tooHigh.message, /from 1 to \d+ \(the TEAM plan's limit\)/);
  // A body without the required field: sent as a client that skips the types would.
  assert.equal((await api('PATCH', `/api/v1/projects/${owner.project}/keys/${ci.body.id}`, personal, {})).status, 400);
  const lifted = success(await me.setKeyLimit({ params: key, body: { rate_limit: null } }));
  assert.equal(lifted.body.rate_limit, null);
  await waitFor(async () => (await toolStatus(ci.body.key)) === 200, { timeout: 1000, message: 'the lifted limit to reach the gateway' });
  const row = success(await me.listKeys({ params: project })).body.keys.find((k) => k.id === ci.body.id);
  assert.equal(row?.rate_limit, null);
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
  // Leased limits write usage with the replica's next call or within a second (docs/operations.md
  // "Leased or exact limits"): the counts are read once they have landed.
  const usageNow = async () => success(await as(mine).usage({ params: { workspace: u.workspace } }));
  const countsOf = (body: Awaited<ReturnType<typeof usageNow>>['body']) => Object.fromEntries(body.perKey.map((k) => [k.name, k.count]));
  await waitFor(async () => countsOf((await usageNow()).body)['beta'] === 2, { timeout: 5_000, message: 'the usage to be written' });
  const usage = await usageNow();
  const perKey = countsOf(usage.body);
  assert.deepEqual(perKey, { alpha: 3, beta: 2 }, 'every admitted request counts for its key');
  assert.deepEqual(usage.body.perTool, [{ tool: 'svc_help', count: 4 }], 'tools/call counts for its tool; tools/list for none');
  // The minute's counter holds what the replica reserved, at least what it admitted (leased limits).
  assert.ok(usage.body.minute.used >= 5, `the minute shows ${usage.body.minute.used} used`);
});

test('usage over time: the last 30 days per day, per key and per tool, as the gateway counted them; days out of range is a 400 naming it', async () => {
  const u = await seed(f.accounts, { plan: 'TEAM' });
  const mine = (await f.accounts.keys.createUserKey({ userId: u.userId })).key;
  const a = await f.accounts.keys.createProjectKey({ project: u.project, workspace: u.workspace, level: 'VIEWER', name: 'alpha' });
  for (let i = 0; i < 2; i++) assert.equal(await toolStatus(a.key, u.project), 200);
  // Three days ago, through the gateway's own limiter on a clock set back.
  const { createRateLimiter } = await import('../src/ratelimit/rate-limiter.ts');
  const past = createRateLimiter(f.redis.client, { profile: 'current', scale: 1, now: () => Date.now() - 3 * 86_400_000 });
  for (let i = 0; i < 4; i++)
    await past({ workspace: u.workspace, plan: 'TEAM', countsAsQuery: true, credential: `key:${a.record.id}`, tool: 'svc_search' });
  const usageOf = (query: { days?: number } = {}) => as(mine).usage({ params: { workspace: u.workspace }, query });
  // The gateway's two calls land with its next call or within a second (leased limits).
  await waitFor(async () => success(await usageOf()).body.daily.requests.at(-1) === 2, {
    timeout: 5_000,
    message: 'the usage to be written',
  });
  const usage = success(await usageOf());
  const daily = usage.body.daily;
  assert.equal(daily.days.length, USAGE_HISTORY_DAYS);
  assert.equal(daily.days.at(-1), new Date().toISOString().slice(0, 10), 'today is last');
  const expected = new Array<number>(USAGE_HISTORY_DAYS).fill(0);
  expected[USAGE_HISTORY_DAYS - 1] = 2;
  expected[USAGE_HISTORY_DAYS - 4] = 4;
  assert.deepEqual(daily.requests, expected);
  assert.deepEqual(daily.perKey, [{ name: 'alpha', prefix: a.record.prefix, project: u.project, counts: expected }]);
  const tools = Object.fromEntries(daily.perTool.map((t) => [t.tool, t.counts.indexOf(Math.max(...t.counts))]));
  assert.deepEqual(tools, { svc_search: USAGE_HISTORY_DAYS - 4, svc_help: USAGE_HISTORY_DAYS - 1 });
  assert.equal(usage.body.month.used >= 2, true, 'the meters are as before');
  const week = success(await usageOf({ days: 7 }));
  assert.deepEqual(week.body.daily.requests, expected.slice(-7));
  for (const bad of ['0', '31', 'x', '7.5', '-1']) {
    // Not numbers the contract allows: sent as the query string carries them.
    const r = refusal(await usageOf({ days: bad as unknown as number }), 400);
    assert.equal(r.field, 'days', JSON.stringify(r));
  }
});

test('service accounts over REST: create, grant, call, rotate, revoke, each audited', async () => {
  const workspace = { workspace: owner.workspace };
  const created = success(await me.createServiceAccount({ params: workspace, body: { name: 'deploy-bot' } }), 201);
  assert.match(created.body.key, /^svc-bot-/);
  const id = created.body.id;
  // A refusal by role is a JSON-RPC error in a 403 answer (docs/errors.md): read its code.
  const search = async (key: string) => {
    const r = await post(f.url, `/mcp/${owner.project}`, call('svc_search', { query: 'x' }), { 'X-API-Key': key });
    return r.status === 403 && r.body.error ? r.body.error.data.code : r.status;
  };
  assert.equal(await search(created.body.key), 'access_denied', 'no grant yet: no role on the project');
  success(await me.grantServiceAccount({ params: { ...workspace, id }, body: { project: owner.project, level: 'VIEWER' } }), 200);
  await waitFor(async () => (await search(created.body.key)) === 200, { timeout: 1000, message: 'the grant to reach the gateway' });
  const listed = success(await me.listServiceAccounts({ params: workspace }));
  assert.deepEqual(listed.body.service_accounts.find((x) => x.id === id)?.grants, { [owner.project]: 'VIEWER' });
  // The default overlap (24h), as a project key's roll: both keys work until it ends.
  const rotated = success(await me.rotateServiceAccount({ params: { ...workspace, id }, body: {} }), 201);
  assert.ok(
    Math.abs(Date.parse(rotated.body.old_key_until ?? '') - Date.now() - 86_400_000) < 60_000,
    rotated.body.old_key_until ?? 'none',
  );
  assert.equal(await toolStatus(created.body.key), 200, 'the old key works during the overlap');
  assert.equal(await toolStatus(rotated.body.key), 200);
  const again = success(await me.rotateServiceAccount({ params: { ...workspace, id }, body: { overlap: '0m' } }), 201);
  assert.equal(again.body.old_key_until, null);
  await waitFor(async () => (await toolStatus(rotated.body.key)) === 401, { timeout: 1000, message: 'the old key to stop' });
  success(await me.revokeServiceAccount({ params: { ...workspace, id } }));
  // Every key of the account stops with it: the newest, and the first one still in its overlap.
  for (const key of [again.body.key, created.body.key])
    await waitFor(async () => (await toolStatus(key)) === 401, { timeout: 1000, message: 'the revoked account to stop' });
  // A revoked service account stays revoked.
  const refused = refusal(await me.rotateServiceAccount({ params: { ...workspace, id }, body: {} }), 409);
  assert.match(refused.message, /deploy-bot is revoked: it gets no new key/);
  const after = success(await me.listServiceAccounts({ params: workspace }));
  assert.equal(after.body.service_accounts.find((x) => x.id === id)?.revoked, true);
  const actions = await auditActions();
  for (const a of ['service_account.created', 'service_account.granted', 'service_account.key_rotated', 'service_account.revoked'])
    assert.ok(actions.includes(a), a);
});

/** A TEAM workspace with a project and its owner's personal key. */
async function ownWorkspace() {
  const o = await seed(f.accounts, { plan: 'TEAM' });
  return { ...o, personal: (await f.accounts.keys.createUserKey({ userId: o.userId })).key };
}

test('keys: disable and enable, a note, an IP allow-list, the list filtered; each audited', async () => {
  // A workspace of its own: the suite's other requests spend the owner's management bucket.
  const { project, personal, workspace } = await ownWorkspace();
  const c = as(personal);
  const made = success(
    await c.createKey({
      params: { project },
      body: { name: 'controls', level: 'VIEWER', note: 'made by the test', allowed_ips: ['127.0.0.1'] },
    }),
    201,
  );
  const id = made.body.id;
  const key = { project, id };
  assert.equal(await toolStatus(made.body.key, project), 200);

  assert.deepEqual(success(await c.disableKey({ params: key, body: {} })).body, { id, status: 'disabled' });
  await waitFor(async () => (await toolStatus(made.body.key, project)) === 401, {
    timeout: 1000,
    message: 'the disabled key to be refused',
  });
  const onlyDisabled = success(await c.listKeys({ params: { project }, query: { status: 'disabled' } }));
  assert.deepEqual(
    onlyDisabled.body.keys.map((k) => k.id),
    [id],
  );
  assert.deepEqual(success(await c.enableKey({ params: key, body: {} })).body, { id, status: 'active' });
  await waitFor(async () => (await toolStatus(made.body.key, project)) === 200, { timeout: 1000, message: 'the enabled key to work' });

  const note = (text: string) => c.setKeyNote({ params: key, body: { note: text } });
  assert.deepEqual(success(await note('  rotate before March  ')).body, { id, note: 'rotate before March' });
  assert.equal(refusal(await note('x'.repeat(501)), 400).field, 'note');
  success(await note('x'.repeat(500)), 200);
  assert.match(
    refusal(await note('deploy \u202Egnp.exe'), 400).message,
    /may not hold control, invisible or direction-changing characters/,
  );
  assert.equal(success(await note('two\nlines')).body.note, 'two lines');
  success(await note('  rotate before March  '));

  const allow = (list: string[]) => c.setKeyAllowedIps({ params: key, body: { allowed_ips: list } });
  assert.deepEqual(success(await allow(['203.0.113.0/24', '2001:DB8::/32'])).body, {
    id,
    allowed_ips: ['203.0.113.0/24', '2001:db8::/32'],
  });
  await waitFor(async () => (await toolStatus(made.body.key, project)) === 403, { timeout: 1000, message: 'the allow-list to apply' });
  const bad = refusal(await allow(['10.0.0.0/8', '10.0.0.300']), 400);
  assert.match(bad.message, /"10\.0\.0\.300" is not an IPv4 or IPv6 address or CIDR block/);
  assert.equal(bad.field, 'allowedIps');
  refusal(await allow(Array.from({ length: 33 }, (_, i) => `10.${i}.0.0/16`)), 400);
  assert.equal(success(await allow([])).body.allowed_ips.length, 0);

  // Search by name (any case) and note; revoked keys only when asked for.
  const list = async (query: { status?: string; q?: string }) => c.listKeys({ params: { project }, query: query as never });
  assert.deepEqual(
    success(await list({ q: 'CONTROLS' })).body.keys.map((k) => [k.id, k.note]),
    [[id, 'rotate before March']],
  );
  assert.equal(success(await list({ q: 'march' })).body.keys.length, 1);
  success(await c.revokeKey({ params: key }));
  assert.ok(!success(await list({})).body.keys.some((k) => k.id === id), 'revoked keys are left out by default');
  const revokedOnes = success(await list({ status: 'revoked' })).body.keys;
  assert.ok(revokedOnes.every((k) => k.status === 'revoked'));
  assert.ok(revokedOnes.some((k) => k.id === id));
  assert.ok(success(await list({ status: 'all' })).body.keys.some((k) => k.id === id));
  assert.equal(refusal(await list({ status: 'gone' }), 400).field, 'status');
  refusal(await list({ q: 'x'.repeat(81) }), 400);
  // Nothing about a revoked key changes any more.
  refusal(await c.enableKey({ params: key, body: {} }), 409);

  const actions = (await f.accounts.audit.page(workspace, { limit: 100 })).entries.map((e): string => e.action);
  for (const a of ['key.disabled', 'key.enabled', 'key.note_changed', 'key.allowed_ips_changed']) assert.ok(actions.includes(a), a);

  // The filter is declared: the OpenAPI document names its query parameters.
  const doc = (await (await fetch(`${f.url}/api/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
  };
  const params = doc.paths['/api/v1/projects/{project}/keys']?.['get']?.parameters ?? [];
  assert.deepEqual(
    params.filter((p) => p.in === 'query').map((p) => p.name),
    ['status', 'q'],
  );
});

test('keys: a roll marks the old key "replaced by" the new one', async () => {
  const { project, personal } = await ownWorkspace();
  const c = as(personal);
  const made = success(await c.createKey({ params: { project }, body: { name: 'rolled', level: 'VIEWER' } }), 201);
  const rolled = success(await c.rollKey({ params: { project, id: made.body.id }, body: { overlap: '1h' } }), 201);
  const rows = success(await c.listKeys({ params: { project }, query: { q: 'rolled' } })).body.keys;
  const old = rows.find((k) => k.id === made.body.id);
  const fresh = rows.find((k) => k.id === rolled.body.id);
  assert.equal(old?.replaced_by?.id, rolled.body.id);
  assert.equal(old?.replaced_by?.name, 'rolled');
  assert.equal(fresh?.replaced_by, null);
  assert.equal(fresh?.status, 'active');
});

test("second factor: the owner switches the workspace policy and resets a member's factors; both audited", async () => {
  // A workspace of its own: the suite's owner spends most of its management bucket's minute.
  const boss = await seed(f.accounts, { plan: 'TEAM' });
  const c = as((await f.accounts.keys.createUserKey({ userId: boss.userId })).key);
  const ws = { workspace: boss.workspace };
  assert.deepEqual(success(await c.factorPolicy({ params: ws })).body, { required: false });
  // A wrong type, as a careless client sends it: a 400 naming the field.
  assert.equal(refusal(await c.setFactorPolicy({ params: ws, body: { required: 'yes' as unknown as boolean } }), 400).field, 'required');
  success(await c.setFactorPolicy({ params: ws, body: { required: true } }));
  assert.equal(await f.accounts.factors.required(boss.workspace), true);
  // Now the workspace requires a factor, so switching the policy off (weakening a protection)
  // needs one used within minutes, which a token never carries (docs/security.md "Step-up").
  assert.equal(refusal(await c.setFactorPolicy({ params: ws, body: { required: false } }), 403).code, 'step_up_required');
  assert.equal(await f.accounts.factors.required(boss.workspace), true);
  await f.accounts.factors.setRequired(boss.workspace, false);

  const member = await seed(f.accounts);
  await f.accounts.workspaces.setRole(boss.project, member.userId, 'VIEWER');
  await f.accounts.factors.beginTotp(member.userId, 'JBSWY3DPEHPK3PXP');
  assert.ok(Array.isArray(await f.accounts.factors.confirmTotp(member.userId, 1)));
  success(await c.resetFactors({ params: { ...ws, user: member.userId } }));
  assert.equal(await f.accounts.factors.hasAny(member.userId), false);
  const outsider = await seed(f.accounts);
  refusal(await c.resetFactors({ params: { ...ws, user: outsider.userId } }), 404);
  refusal(await c.resetFactors({ params: { ...ws, user: boss.userId } }), 403);
  // Step-up over a token: a person with a second factor creates keys, service accounts and roles
  // on the dashboard, after the factor (docs/security.md "Step-up"); without a factor, over a token.
  const project = { project: boss.project };
  success(await c.createKey({ params: project, body: { name: 'before', level: 'ADMIN' } }), 201);
  await f.accounts.factors.beginTotp(boss.userId, 'JBSWY3DPEHPK3PXP');
  assert.ok(Array.isArray(await f.accounts.factors.confirmTotp(boss.userId, 1)));
  const admin = refusal(await c.createKey({ params: project, body: { name: 'ops', level: 'ADMIN' } }), 403);
  assert.equal(admin.code, 'step_up_required');
  assert.equal(admin.page, `/dashboard/projects/${boss.project}/keys`);
  assert.equal(refusal(await c.createKey({ params: project, body: { name: 'ci', level: 'EDITOR' } }), 403).code, 'step_up_required');
  assert.equal(refusal(await c.createServiceAccount({ params: ws, body: { name: 'robot' } }), 403).code, 'step_up_required');
  assert.equal(refusal(await c.putMember({ params: project, body: { email: member.email, role: 'ADMIN' } }), 403).code, 'step_up_required');
  const actions = (await f.accounts.audit.page(boss.workspace)).entries.map((e) => e.action);
  assert.ok(actions.includes('factor.policy_changed') && actions.includes('factor.reset'), actions.join(','));
});

test("a service account's OAuth client keys over REST: set (JWK Set or URL), show, remove, each audited; bad keys are 400s naming the problem", async () => {
  // A workspace of its own: the management bucket (120 a minute per workspace) is not this suite's.
  const ws = await seed(f.accounts, { plan: 'TEAM' });
  const c = as((await f.accounts.keys.createUserKey({ userId: ws.userId })).key);
  const { bot } = await f.accounts.bots.create({ workspace: ws.workspace, name: 'cc-bot' });
  const params = { workspace: ws.workspace, id: bot.id };
  const pub = (kid: string) => ({ ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }), kid });
  const empty = success(await c.getServiceAccountClient({ params }));
  assert.deepEqual(
    { client_id: empty.body.client_id, jwks: empty.body.jwks, jwks_uri: empty.body.jwks_uri },
    { client_id: bot.id, jwks: null, jwks_uri: null },
  );
  assert.match(empty.body.token_endpoint, /\/api\/oauth\/token$/);

  const setKeys = (body: Record<string, unknown>) => c.setServiceAccountClientKeys({ params, body: body as never });
  const set = success(await setKeys({ jwks: { keys: [pub('k1'), pub('k2')] } }));
  assert.deepEqual(
    (set.body.jwks as { keys: { kid: string }[] } | null)?.keys.map((k) => k.kid),
    ['k1', 'k2'],
  );
  assert.deepEqual((await f.accounts.serviceAccountClients.clientMetadata(bot.id))?.jwks?.keys.length, 2, 'the client exists');
  assert.deepEqual(success(await c.getServiceAccountClient({ params })).body.jwks, set.body.jwks);

  // Each bound of SERVICE_ACCOUNT_KEY_LIMITS, and what is never a public key, is a 400 naming it.
  const tooMany = Array.from({ length: SERVICE_ACCOUNT_KEY_LIMITS.maxKeys + 1 }, (_, i) => pub(`k${i}`));
  const refusals: [Record<string, unknown>, RegExp][] = [
    [{ jwks: { keys: tooMany } }, /must NOT have more than 5 items/],
    [{ jwks: { keys: [{ ...pub('k1'), d: 'secret' }] } }, /private or symmetric key material/],
    [{ jwks: { keys: [pub('x'.repeat(SERVICE_ACCOUNT_KEY_LIMITS.maxKidLength + 1))] } }, /must NOT have more than 128 characters/],
    [{ jwks_uri: `https://idp.example/${'x'.repeat(SERVICE_ACCOUNT_KEY_LIMITS.maxJwksUriLength)}` }, /jwks_uri/],
    [{ jwks_uri: 'http://idp.example/jwks' }, /https/],
    // Never fetched by the guarded client, so never saved (docs/security.md "Client credentials").
    [
      { jwks_uri: 'https://127.0.0.1/jwks' },
      /Jwks_uri must not point at a loopback, link-local, private or other special-use address.*"field":"jwks_uri"/,
    ],
    [{ jwks_uri: 'https://[fe80::1]:8443/jwks' }, /special-use address/],
    [{ jwks_uri: 'https://localhost/jwks' }, /special-use address/],
    [{ jwks: { keys: [pub('k1')] }, jwks_uri: 'https://idp.example/jwks' }, /not both/],
    [{}, /either jwks/],
  ];
  for (const [body, message] of refusals) assert.match(JSON.stringify(refusal(await setKeys(body), 400)), message);
  const kept = success(await c.getServiceAccountClient({ params })).body.jwks as { keys: unknown[] } | null;
  assert.equal(kept?.keys.length, 2, 'a refused set changed nothing');

  const byUrl = success(await setKeys({ jwks_uri: 'https://ci.example/.well-known/jwks.json' }));
  assert.deepEqual([byUrl.body.jwks, byUrl.body.jwks_uri], [null, 'https://ci.example/.well-known/jwks.json']);

  assert.deepEqual(success(await c.removeServiceAccountClientKeys({ params })).body, { id: bot.id, removed: true });
  assert.equal(await f.accounts.serviceAccountClients.clientMetadata(bot.id), null, 'the client is gone');
  assert.equal(success(await c.removeServiceAccountClientKeys({ params })).body.removed, false);
  const actions = await auditActions(ws.workspace, c);
  assert.equal(actions.filter((a) => a === 'service_account.client_keys_set').length, 2);
  assert.equal(actions.filter((a) => a === 'service_account.client_keys_removed').length, 1);
  // Only the workspace's owner: a project ADMIN key of the workspace is refused.
  const admin = as(
    (await f.accounts.keys.createProjectKey({ project: ws.project, workspace: ws.workspace, level: 'ADMIN', name: 'a' })).key,
  );
  refusal(await admin.setServiceAccountClientKeys({ params, body: { jwks: { keys: [pub('k1')] } } as never }), 403);
  refusal(await admin.getServiceAccountClient({ params }), 403);
});

test('trusted identity providers over REST: add (JWK Set or URL), list, remove, each audited; at most maxIssuers; bad input is a 400 naming it', async () => {
  const ws = await seed(f.accounts, { plan: 'TEAM' });
  const c = as((await f.accounts.keys.createUserKey({ userId: ws.userId })).key);
  const params = { workspace: ws.workspace };
  const jwks = { keys: [{ ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }), kid: 'idp-1' }] };
  const add = (body: Record<string, unknown>) => c.addTrustedIssuer({ params, body: body as never });
  const added = success(await add({ issuer: 'https://idp.example', jwks }), 201);
  assert.equal(added.body.issuer, 'https://idp.example');
  const again = success(await add({ issuer: 'https://idp.example', jwks_uri: 'https://idp.example/jwks' }), 201);
  assert.deepEqual(
    [again.body.id, again.body.jwks, again.body.jwks_uri],
    [added.body.id, null, 'https://idp.example/jwks'],
    'the same issuer again replaces its keys',
  );
  for (let i = 1; i < TRUSTED_ISSUER_LIMITS.maxIssuers; i++) success(await add({ issuer: `https://idp${i}.example`, jwks }), 201);
  assert.match(refusal(await add({ issuer: 'https://one-more.example', jwks }), 409).message, /at most 5 identity providers/);
  assert.equal(success(await c.listTrustedIssuers({ params })).body.trusted_issuers.length, TRUSTED_ISSUER_LIMITS.maxIssuers);

  const refusals: [Record<string, unknown>, RegExp][] = [
    [{ issuer: 'http://idp.example', jwks }, /Issuer must be an https URL/],
    [{ issuer: 'https://idp.example/?tenant=1', jwks }, /query or a fragment/],
    [{ issuer: `https://idp.example/${'x'.repeat(TRUSTED_ISSUER_LIMITS.maxIssuerLength)}`, jwks }, /more than 2048 characters/],
    [{ issuer: 'https://idp.example' }, /either jwks/],
    [{ issuer: 'https://idp.example', jwks: { keys: [{ kty: 'oct', kid: 'k', k: 'c2VjcmV0' }] } }, /private or symmetric/],
    [{ issuer: 'https://idp.example', jwks_uri: 'https://169.254.169.254/jwks' }, /special-use address/],
    [{ issuer: 'https://idp.example', jwks_uri: 'https://10.0.0.8/jwks' }, /special-use address/],
  ];
  for (const [body, message] of refusals) assert.match(JSON.stringify(refusal(await add(body), 400)), message);
  const one = { ...params, id: added.body.id };
  assert.deepEqual(success(await c.removeTrustedIssuer({ params: one })).body, { id: added.body.id, removed: true });
  refusal(await c.removeTrustedIssuer({ params: one }), 404);
  assert.equal(await f.accounts.trustedIssuers.find(ws.workspace, 'https://idp.example'), null);
  const actions = await auditActions(ws.workspace, c);
  assert.equal(actions.filter((a) => a === 'trusted_issuer.added').length, TRUSTED_ISSUER_LIMITS.maxIssuers + 1);
  assert.equal(actions.filter((a) => a === 'trusted_issuer.removed').length, 1);
  const admin = as(
    (await f.accounts.keys.createProjectKey({ project: ws.project, workspace: ws.workspace, level: 'ADMIN', name: 'a' })).key,
  );
  refusal(await admin.listTrustedIssuers({ params }), 403);
});

// Workload issuers (docs/workload-identity.md "Managing them"): GitHub's defaults filled in, a
// Kubernetes cluster's JWKS URL, a SPIFFE bundle; a rule names only a live service account of the workspace.
test('workload issuers over REST: add, list, replace, remove, each audited; bounded; bad input a 400 naming the field; owner only', async () => {
  const ws = await seed(f.accounts, { plan: 'TEAM' });
  const c = as((await f.accounts.keys.createUserKey({ userId: ws.userId })).key);
  const params = { workspace: ws.workspace };
  const jwks = { keys: [{ ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }), kid: 'k-1' }] };
  const { bot } = await f.accounts.bots.create({ workspace: ws.workspace, name: 'ci' });
  const add = (body: Record<string, unknown>) => c.addWorkloadIssuer({ params, body: body as never });
  const rule = (claims: Record<string, string>, account = bot.id) => ({ service_account: account, claims });

  const gh = success(await add({ kind: 'github-actions', rules: [rule({ repository: 'acme/app', ref: 'refs/heads/main' })] }), 201);
  assert.deepEqual(
    [gh.body.issuer, gh.body.jwks_uri, gh.body.audience, gh.body.rules],
    [GITHUB_ACTIONS_ISSUER, `${GITHUB_ACTIONS_ISSUER}/.well-known/jwks`, null, [rule({ repository: 'acme/app', ref: 'refs/heads/main' })]],
    "GitHub's issuer and JWKS URL are the defaults",
  );
  const replaced = success(
    await add({ kind: 'github-actions', audience: 'https://svc.example', rules: [rule({ repository_owner: 'acme' })] }),
    201,
  );
  assert.deepEqual([replaced.body.id, replaced.body.audience, replaced.body.rules.length], [gh.body.id, 'https://svc.example', 1]);
  success(
    await add({
      kind: 'kubernetes',
      issuer: 'https://k8s.example',
      jwks_uri: 'https://k8s.example/openid/v1/jwks',
      rules: [rule({ namespace: 'ci-*' })],
    }),
    201,
  );
  success(
    await add({ kind: 'spiffe', issuer: 'spiffe://example.org', jwks, rules: [rule({ spiffe_id: 'spiffe://example.org/ci/**' })] }),
    201,
  );
  for (let i = 3; i < WORKLOAD_ISSUER_LIMITS.maxIssuers; i++)
    success(await add({ kind: 'kubernetes', issuer: `https://k8s${i}.example`, jwks, rules: [rule({ namespace: 'ci' })] }), 201);
  assert.match(
    refusal(await add({ kind: 'kubernetes', issuer: 'https://one-more.example', jwks, rules: [rule({ namespace: 'ci' })] }), 409).message,
    /at most 10 workload issuers/,
  );
  assert.equal(success(await c.listWorkloadIssuers({ params })).body.workload_issuers.length, WORKLOAD_ISSUER_LIMITS.maxIssuers);

  const other = await seed(f.accounts, { plan: 'TEAM' });
  const { bot: foreign } = await f.accounts.bots.create({ workspace: other.workspace, name: 'theirs' });
  const k8s = (r: unknown, more: Record<string, unknown> = {}) => ({
    kind: 'kubernetes',
    issuer: 'https://k8s.example',
    jwks,
    rules: [r],
    ...more,
  });
  const refusals: [Record<string, unknown>, RegExp][] = [
    [{ kind: 'gitlab', rules: [rule({ sub: 'x' })] }, /kind/],
    [{ kind: 'github-actions', rules: [rule({ workflow: 'deploy' })] }, /must pin the owner/],
    [{ kind: 'github-actions', rules: [rule({ repository: '*/app' })] }, /must pin the owner/],
    [{ kind: 'github-actions', rules: [rule({ email: 'a@b' })] }, /names only/],
    [{ kind: 'github-actions', rules: [] }, /rules/],
    [{ kind: 'github-actions', rules: [rule({})] }, /1 to 8 claims/],
    [{ kind: 'github-actions', rules: [rule({ repository: 'acme/app' }, foreign.id)] }, /not a live service account of/],
    [{ kind: 'github-actions', rules: [rule({ repository: 'acme/app' }, 'bot_nosuch')] }, /not a live service account of/],
    [k8s(rule({ namespace: 'ci' }), { issuer: 'http://k8s.example' }), /https URL/],
    [{ kind: 'kubernetes', issuer: 'https://k8s.example', rules: [rule({ namespace: 'ci' })] }, /Give jwks or jwks_uri/],
    [k8s(rule({ namespace: 'ci' }), { jwks_uri: 'https://k8s.example/jwks' }), /either jwks .* or jwks_uri, not both/],
    [k8s(rule({ namespace: 'ci' }), { jwks: undefined, jwks_uri: 'https://10.0.0.8/jwks' }), /special-use address/],
    [k8s(rule({ namespace: 'ci' }), { jwks: { keys: [{ kty: 'oct', kid: 'k', k: 'c2VjcmV0' }] } }), /private or symmetric/],
    [{ kind: 'spiffe', issuer: 'spiffe://Example.org', jwks, rules: [rule({ spiffe_id: 'spiffe://Example.org/x' })] }, /trust domain/],
    [{ kind: 'spiffe', issuer: 'spiffe://example.org', jwks, rules: [rule({ spiffe_id: 'spiffe://evil.org/x' })] }, /trust domain/],
    [{ kind: 'github-actions', rules: [rule({ repository: 'x'.repeat(WORKLOAD_ISSUER_LIMITS.maxPatternLength + 1) })] }, /256/],
    [{ kind: 'github-actions', extra: 1, rules: [rule({ repository: 'acme/app' })] }, /extra/],
  ];
  for (const [body, message] of refusals) assert.match(JSON.stringify(refusal(await add(body), 400)), message, JSON.stringify(body));

  const one = { ...params, id: gh.body.id };
  assert.deepEqual(success(await c.removeWorkloadIssuer({ params: one })).body, { id: gh.body.id, removed: true });
  refusal(await c.removeWorkloadIssuer({ params: one }), 404);
  assert.equal(await f.accounts.workloadIssuers.find(ws.workspace, GITHUB_ACTIONS_ISSUER), null);
  const audit = success(await c.audit({ params, query: { limit: 500 } })).body.entries;
  assert.equal(audit.filter((e) => e.action === 'workload_issuer.added').length, WORKLOAD_ISSUER_LIMITS.maxIssuers + 1);
  assert.ok(
    audit.some((e) => e.action === 'workload_issuer.added' && e.target.includes(bot.id)),
    'the entry names the account it reaches',
  );
  assert.equal(audit.filter((e) => e.action === 'workload_issuer.removed').length, 1);
  const admin = as(
    (await f.accounts.keys.createProjectKey({ project: ws.project, workspace: ws.workspace, level: 'ADMIN', name: 'a' })).key,
  );
  refusal(await admin.listWorkloadIssuers({ params }), 403);
  const stranger = as((await f.accounts.keys.createUserKey({ userId: other.userId })).key);
  refusal(
    await stranger.addWorkloadIssuer({ params, body: { kind: 'github-actions', rules: [rule({ repository: 'x/y' })] } as never }),
    403,
  );
});

test('client governance over REST: the policy read and replaced, a waiting client approved and denied, each audited; bad rules are 400s naming the list', async () => {
  const ws = await seed(f.accounts, { plan: 'TEAM' });
  const c = as((await f.accounts.keys.createUserKey({ userId: ws.userId })).key);
  const params = { workspace: ws.workspace };
  assert.deepEqual(success(await c.clientPolicy({ params })).body, { mode: 'open', allow: [], deny: [], updated_at: null });
  const set = (body: Record<string, unknown>) => c.setClientPolicy({ params, body: body as never });
  const saved = success(await set({ mode: 'approval', allow: [{ kind: 'host', value: 'claude.ai' }] })).body;
  assert.deepEqual([saved.mode, saved.allow, saved.deny], ['approval', [{ kind: 'host', value: 'claude.ai' }], []]);
  assert.deepEqual(success(await c.clientPolicy({ params })).body, saved);
  const refusals: [Record<string, unknown>, RegExp][] = [
    [{ mode: 'closed' }, /mode/],
    [{ mode: 'open', deny: [{ kind: 'host', value: 'https://x.example' }] }, /Deny: host https:\/\/x\.example is not a host name/],
    [{ mode: 'open', allow: [{ kind: 'name', value: ' padded' }] }, /Allow: a rule's value/],
    [{ mode: 'open', allow: [{ kind: 'colour', value: 'blue' }] }, /must be one of client_id, host, name/],
    [{ mode: 'open', allow: Array.from({ length: 51 }, (_, i) => ({ kind: 'name', value: `n${i}` })) }, /allow/],
  ];
  for (const [body, message] of refusals) assert.match(JSON.stringify(refusal(await set(body), 400)), message);

  const clientId = 'https://chatgpt.com/oauth/abc/client.json';
  const one = { ...params, client: clientId };
  refusal(await c.approveClient({ params: one }), 404);
  await f.accounts.clientPolicies.fileWait(ws.workspace, { clientId, name: 'ChatGPT' }, 'someone@example.com');
  const [waiting] = success(await c.listClientApprovals({ params })).body.client_approvals;
  assert.deepEqual(
    [waiting?.client_id, waiting?.name, waiting?.state, waiting?.requested_by],
    [clientId, 'ChatGPT', 'pending', 'someone@example.com'],
  );
  assert.equal(success(await c.approveClient({ params: one })).body.state, 'approved');
  const denied = success(await c.denyClient({ params: one })).body;
  assert.deepEqual([denied.state, denied.decided_by !== null], ['denied', true]);
  const actions = await auditActions(ws.workspace, c);
  for (const action of ['client_policy.changed', 'client.approved', 'client.denied']) assert.ok(actions.includes(action), action);
  const admin = as(
    (await f.accounts.keys.createProjectKey({ project: ws.project, workspace: ws.workspace, level: 'ADMIN', name: 'a' })).key,
  );
  refusal(await admin.clientPolicy({ params }), 403);
  refusal(await admin.denyClient({ params: one }), 403);
});

test(`webhooks over REST: create (secret shown once), list, change, rotate, test, deliveries, delete, each audited; at most ${WEBHOOK_MAX_ENDPOINTS}; bad input is a 400 naming it; another tenant's id is a 404`, async () => {
  const ws = await seed(f.accounts, { plan: 'TEAM' });
  const c = as((await f.accounts.keys.createUserKey({ userId: ws.userId })).key);
  const params = { workspace: ws.workspace };
  const add = (body: Record<string, unknown>) => c.createWebhook({ params, body: body as never });
  const made = success(
    await add({ url: 'https://hooks.example/svc/T000/B000/s3cr3t-token?key=q5ecret', events: ['key.created', 'quota.warning'] }),
    201,
  );
  assert.match(made.body.secret, /^whsec_/);
  assert.deepEqual([made.body.enabled, made.body.failing, made.body.description], [true, false, '']);
  const listed = success(await c.listWebhooks({ params })).body.webhooks;
  assert.deepEqual(
    listed.map((w) => w.id),
    [made.body.id],
  );
  assert.ok(!JSON.stringify(listed).includes(made.body.secret), 'the secret is not listed');
  assert.ok(!(await f.redis.client.hget(`svc:webhooks:{${ws.workspace}}`, made.body.id))!.includes(made.body.secret), 'stored sealed');
  const one = { ...params, id: made.body.id };
  const changed = success(await c.updateWebhook({ params: one, body: { events: ['member.added'], enabled: false } }));
  assert.deepEqual([changed.body.events, changed.body.enabled], [['member.added'], false]);
  // A change names only the owner's settings: an internal field is a 400 naming it, never merged into the store.
  for (const field of ['secret', 'createdAt', 'previousSecret', 'id']) {
    const r = refusal(await c.updateWebhook({ params: one, body: { [field]: 'x' } as never }), 400);
    assert.ok(JSON.stringify(r).includes(field), `${field}: ${JSON.stringify(r)}`);
  }
  for (const url of ['https://hooks.example:25/', 'http://hooks.example:1023/', 'https://hooks.example:22/'])
    assert.ok(JSON.stringify(refusal(await c.updateWebhook({ params: one, body: { url } }), 400)).includes('url'), url);
  for (const url of ['https://hooks.example:80/a', 'http://hooks.example:443/a', 'https://hooks.example:1024/a'])
    success(await c.updateWebhook({ params: one, body: { url } }));
  assert.match(
    JSON.stringify(refusal(await c.updateWebhook({ params: one, body: { description: 'ok\u001b]0;owned\u0007' } }), 400)),
    /description/,
  );
  const rotated = success(await c.rotateWebhookSecret({ params: one }));
  assert.notEqual(rotated.body.secret, made.body.secret);
  success(await c.testWebhook({ params: one }), 202);
  assert.equal(await f.redis.client.hget(`svc:webhooks:{${ws.workspace}}:state:${made.body.id}`, 'test'), '1');
  assert.deepEqual(success(await c.listWebhookDeliveries({ params: one })).body.deliveries, []);

  const refusals: [Record<string, unknown>, string, RegExp][] = [
    [{ url: 'ftp://hooks.example/', events: ['key.created'] }, 'url', /./],
    [{ url: 'https://user:pw@hooks.example/', events: ['key.created'] }, 'url', /user or password/],
    [{ url: 'https://hooks.example/', events: [] }, 'events', /./],
    [{ url: 'https://hooks.example/', events: ['key.created', 'key.created'] }, 'events', /./],
    [{ url: 'https://hooks.example/', events: ['webhook.test'] }, 'events', /./],
    [{ url: `https://hooks.example/${'x'.repeat(WEBHOOK_URL_MAX)}`, events: ['key.created'] }, 'url', /./],
    [{ url: 'https://hooks.example/', events: ['key.created'], description: 'd'.repeat(WEBHOOK_DESCRIPTION_MAX + 1) }, 'description', /./],
    [{ url: 42, events: ['key.created'] }, 'url', /./],
    [{ url: 'https://hooks.example/', events: 'key.created' }, 'events', /./],
    [{ url: 'smtp://hooks.example:25/', events: ['key.created'] }, 'url', /./],
    [{ url: 'http://hooks.example:25/', events: ['key.created'] }, 'url', /port/],
    [{ url: 'https://hooks.example:587/', events: ['key.created'] }, 'url', /port/],
    [{ url: 'https://hooks.example/', events: ['key.created'], secret: 'whsec_x' }, 'secret', /not a known field/],
    ...['\u001b[2J', 'line\r\nbreak', 'zero\u200bwidth', 'bidi\u202eflip', 'nbsp\u00a0space'].map(
      (description): [Record<string, unknown>, string, RegExp] => [
        { url: 'https://hooks.example/', events: ['key.created'], description },
        'description',
        /control, invisible or direction-changing/,
      ],
    ),
  ];
  for (const [body, field, message] of refusals) {
    const r = refusal(await add(body), 400);
    assert.match(JSON.stringify(r), message);
    assert.ok(JSON.stringify(r).includes(field), `${JSON.stringify(body).slice(0, 80)}: names ${field}: ${JSON.stringify(r)}`);
  }
  for (let i = 1; i < WEBHOOK_MAX_ENDPOINTS; i++) success(await add({ url: `https://hooks.example/${i}`, events: ['key.created'] }), 201);
  assert.match(refusal(await add({ url: 'https://hooks.example/more', events: ['key.created'] }), 409).message, /10 webhook endpoints/);

  // Another workspace's owner: its own workspace path with this endpoint's id, and this workspace's path.
  const other = await seed(f.accounts, { plan: 'TEAM' });
  const o = as((await f.accounts.keys.createUserKey({ userId: other.userId })).key);
  const theirs = { workspace: other.workspace, id: made.body.id };
  refusal(await o.updateWebhook({ params: theirs, body: { enabled: true } }), 404);
  refusal(await o.rotateWebhookSecret({ params: theirs }), 404);
  refusal(await o.testWebhook({ params: theirs }), 404);
  refusal(await o.listWebhookDeliveries({ params: theirs }), 404);
  refusal(await o.deleteWebhook({ params: theirs }), 404);
  // This workspace's path: not theirs to manage (ownerOf's 403, as for every owner-only operation).
  refusal(await o.deleteWebhook({ params: one }), 403);
  refusal(await o.listWebhooks({ params }), 403);

  assert.deepEqual(success(await c.deleteWebhook({ params: one })).body, { id: made.body.id, removed: true });
  refusal(await c.deleteWebhook({ params: one }), 404);
  const actions = await auditActions(ws.workspace, c);
  assert.equal(actions.filter((a) => a === 'webhook.created').length, WEBHOOK_MAX_ENDPOINTS);
  for (const a of ['webhook.changed', 'webhook.secret_rotated', 'webhook.removed']) assert.ok(actions.includes(a), a);
  // The audit keeps the endpoint id and the URL's origin, never its path or query (they may carry a token).
  const entries = success(await c.audit({ params, query: { limit: 500 } })).body.entries;
  const created = entries.find((e) => e.action === 'webhook.created' && e.target.includes(made.body.id))!;
  assert.equal(created.target, `webhook:${made.body.id} (https://hooks.example)`);
  assert.ok(
    !JSON.stringify(entries).includes('s3cr3t-token') && !JSON.stringify(entries).includes('q5ecret'),
    'no URL secret in the audit',
  );
});

test('upstream MCP servers over REST: register (its tools read at once), list, get, change, refresh, a tool row, remove, each audited; bad input is a 400 naming it', async () => {
  const server = await startPlainUpstream();
  const who = await seed(f.accounts, { plan: 'TEAM' });
  const client = as((await f.accounts.keys.createUserKey({ userId: who.userId })).key);
  const project = { project: who.project };
  try {
    const added = success(await client.addUpstream({ params: project, body: { name: 'notes', url: server.url } }), 201).body;
    assert.deepEqual(
      added.tools.map((t) => [t.listed_name, t.level, t.state]),
      [
        ['notes__delete_note', 'ADMIN', 'listed'],
        ['notes__read_notes', 'VIEWER', 'listed'],
      ],
    );
    assert.ok(
      server.received.every((r) => r.authorization.startsWith('Bearer ')),
      'every request to the upstream carries a token',
    );
    const one = { ...project, name: 'notes' };
    assert.equal(success(await client.listUpstreams({ params: project })).body.upstreams.length, 1);
    assert.equal(success(await client.getUpstream({ params: one })).body.url, server.url);
    const changed = success(
      await client.updateUpstream({ params: one, body: { timeout_ms: 2_000, credential: { header: 'X-Api-Key', value: 's3cret' } } }),
    );
    assert.deepEqual([changed.body.timeout_ms, changed.body.credential], [2_000, { header: 'X-Api-Key' }]);
    assert.ok(!JSON.stringify(changed.body).includes('s3cret'), 'a credential is never shown again');
    success(await client.refreshUpstream({ params: one }));
    const row = success(await client.setUpstreamTool({ params: { ...one, tool: 'delete_note' }, body: { level: 'EDITOR' } }));
    assert.equal(row.body.tools.find((t) => t.name === 'delete_note')?.level, 'EDITOR');
    const bad = await client.addUpstream({ params: project, body: { name: 'svc-notes', url: server.url } });
    assert.equal(refusal(bad, 400).field, 'name');
    const noUrl = await client.addUpstream({ params: project, body: { name: 'other', url: 'ftp://example.com/mcp' } });
    assert.equal(refusal(noUrl, 400).field, 'url');
    assert.equal(refusal(await client.addUpstream({ params: project, body: { name: 'notes', url: server.url } }), 409).code, 'conflict');
    assert.equal(refusal(await client.getUpstream({ params: { ...project, name: 'none' } }), 404).code, 'not_found');
    success(await client.removeUpstream({ params: one }));
    // svc's own tools: the project's approval rule for one (docs/approvals.md "The rule").
    const own = success(await client.listBuiltinTools({ params: project })).body.tools;
    assert.ok(own.some((t) => t.name === 'svc_search' && t.approval === 'none' && t.approval_settable));
    const rule = success(await client.setBuiltinTool({ params: { ...project, tool: 'svc_search' }, body: { approval: 'agents' } }));
    assert.deepEqual([rule.body.approval, rule.body.set_by], ['agents', who.email]);
    assert.equal(
      refusal(await client.setBuiltinTool({ params: { ...project, tool: 'svc_help' }, body: { approval: 'all' } }), 400).field,
      'tool',
    );
    const actions = await auditActions(who.workspace, client);
    for (const a of [
      'upstream.added',
      'upstream.changed',
      'upstream.refreshed',
      'upstream.tool_changed',
      'upstream.removed',
      'tool.approval_changed',
    ])
      assert.ok(actions.includes(a), `${a} audited`);
  } finally {
    await server.close();
  }
});

test('every answer of this suite fits the OpenAPI document, and every operation answered a success', async () => {
  // The suite above makes more management requests of this workspace than one minute's bucket
  // holds (the cross-tenant sweep alone sends every route with three of its credentials): this
  // test starts a fresh count, as the next minute would.
  const minute = WINDOWS.minute(Date.now());
  await f.redis.client.del(K.rateManagement(owner.workspace, minute), K.rateManagement(owner.workspace, minute - 1));
  // The operations the tests above never saw succeed, through the typed client.
  const client = me;
  const body = { name: 'Contract check' };
  const made = await client.createProject({ params: { workspace: owner.workspace }, body });
  assert.ok(made.ok, JSON.stringify(made.response.body));
  // Single sign-on by the owner of a workspace of its own: the suite has spent most of this owner's management bucket.
  const ssoOwner = await seed(f.accounts, { plan: 'TEAM' });
  const ssoClient = typedClient(f.url, (await f.accounts.keys.createUserKey({ userId: ssoOwner.userId })).key, answered);
  const sso = { workspace: ssoOwner.workspace };
  success(await ssoClient.configureSsoProvider({ params: sso, body: { issuer: 'https://idp.example.com', clientId: 'c', secret: 's' } }));
  success(await ssoClient.setSsoPolicy({ params: sso, body: { defaultRole: 'VIEWER' } }));
  const claim = success(await ssoClient.claimSsoDomain({ params: sso, body: { domain: 'contract.example' } }), 201).body;
  dns.set(claim.record.name, [[claim.record.value]]);
  success(await ssoClient.verifySsoDomain({ params: { ...sso, domain: claim.domain } }));
  success(await ssoClient.ssoSettings({ params: sso }));
  success(await ssoClient.releaseSsoDomain({ params: { ...sso, domain: claim.domain } }));
  // SCIM provisioning's tokens (docs/auth-service.md "SCIM provisioning"), by the same owner.
  const scimToken = success(await ssoClient.createScimToken({ params: sso }), 201).body;
  assert.match(scimToken.token, /^svc-scim-/);
  success(await ssoClient.scimSettings({ params: sso }));
  success(await ssoClient.revokeScimToken({ params: { ...sso, id: scimToken.id } }));
  const asker = await seed(f.accounts);
  const refused = await seed(f.accounts);
  const ask = (who: Seeded) =>
    f.accounts.accessRequests.create(
      {
        project: owner.project,
        requester: { type: 'user', id: who.userId, label: who.email },
        requestedLevel: 'VIEWER',
        reason: 'contract',
      },
      { source: '192.0.2.1', requestId: 'test' },
    );
  const denied = await ask(refused);
  const approved = await ask(asker);
  const listed = await client.listAccessRequests({ params: { project: owner.project } });
  assert.ok(listed.ok && listed.body.requests.some((r) => r.id === denied.id));
  const deniedAnswer = await client.denyAccessRequest({ params: { project: owner.project, id: denied.id }, body: {} });
  assert.ok(deniedAnswer.ok, JSON.stringify(deniedAnswer.response.body));
  assert.ok((await client.approveAccessRequest({ params: { project: owner.project, id: approved.id }, body: {} })).ok);
  const hold = () =>
    f.accounts.approvals.create(
      {
        project: owner.project,
        workspace: owner.workspace,
        tool: 'svc_search',
        arguments: { query: 'contract' },
        caller: { type: 'user', id: asker.userId, label: asker.email, clientId: 'svc-cli' },
      },
      { source: '192.0.2.1', requestId: 'test' },
    );
  const [toApprove, toDeny] = [await hold(), await hold()];
  const heldList = success(await client.listApprovals({ params: { project: owner.project } })).body;
  assert.ok(heldList.approvals.some((a) => a.id === toApprove.id && a.call_hash === toApprove.callHash));
  success(await client.approveApproval({ params: { project: owner.project, id: toApprove.id }, body: { call_hash: toApprove.callHash } }));
  success(await client.denyApproval({ params: { project: owner.project, id: toDeny.id }, body: {} }));
  const removed = await client.removeMember({ params: { project: owner.project, user: asker.userId } });
  assert.ok(removed.ok, JSON.stringify(removed.response.body));
  const added = await client.putMember({ params: { project: owner.project }, body: { email: refused.email, role: 'EDITOR' } });
  assert.equal(added.status, 201, JSON.stringify(added.response.body));
  const askerKey = (await f.accounts.keys.createUserKey({ userId: asker.userId })).key;
  const asAsker = as(askerKey);
  const mine = await asAsker.myAccessRequests({});
  assert.ok(mine.ok && mine.body.requests[0]?.status === 'approved', JSON.stringify(mine.response.body));
  // Removed from the project, they ask again for themselves (svc request-access): a new pending request.
  const asked = await asAsker.requestAccess({ params: { project: owner.project }, body: { level: 'VIEWER', reason: 'back again' } });
  assert.equal(asked.status, 201, JSON.stringify(asked.response.body));
  assert.ok(asked.ok && asked.body.status === 'pending' && asked.body.current_level === 'NONE');
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
