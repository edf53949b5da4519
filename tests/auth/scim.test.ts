/**
 * SCIM 2.0 provisioning (docs/auth-service.md "SCIM provisioning"), driven over HTTP as Entra ID
 * and Okta drive it, against the whole stack: the owner makes a token over the management API
 * (shown once), the directory provisions people and groups, each PATCH shape the two directories
 * send deactivates a person, groups map to roles through the workspace's SSO policy, and a
 * deprovisioned person's personal key is refused by two gateways on one Redis right after the
 * call (polled with a bounded deadline). Every bad request is answered in RFC 7644 §3.12's shape.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { startGateway } from '@svc/mcp-gateway/server.ts';
import { SCIM_REQUESTS_PER_MINUTE } from '@svc/sso';
import { freePort, waitFor } from '@svc/testkit';
import { PASSWORD, startStack, type Stack } from '../support/stack.ts';
import { mcpCall } from './gateway-call.ts';
import { ssoOwner } from './sso-setup.ts';
import { entraUser, ERROR, GROUP, oktaUser, PATCH, scimClient, USER, type ScimAnswer } from './scim-client.ts';

const DOMAIN = 'acme-scim.test';
let stack: Stack;
let second: { url: string; close(): Promise<unknown> };
let ownerKey: string;
let ws: string;
let projects: string[];
let scim: ReturnType<typeof scimClient>;
let token: string;

const tag = () => Math.random().toString(36).slice(2, 8);

async function rest(method: string, path: string, key = ownerKey) {
  const res = await fetch(`${stack.baseUrl}${path}`, { method, headers: { 'x-api-key': key, 'content-type': 'application/json' } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function roles(userId: string): Promise<string[]> {
  return Promise.all(
    projects.map(async (slug) => stack.accounts.workspaces.roleOf(userId, (await stack.accounts.workspaces.getProject(slug))!)),
  );
}

async function provisioned(email: string): Promise<{ id: string; userId: string }> {
  const r = await scim('POST', '/Users', oktaUser(email));
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const user = await stack.accounts.users.findByEmail(email);
  return { id: r.body.id!, userId: user!.id };
}

before(async () => {
  stack = await startStack();
  const owner = await stack.accounts.users.create({ email: `owner-${tag()}@elsewhere.test`, password: PASSWORD, emailVerified: true });
  ws = `acme-${tag()}`;
  await stack.accounts.workspaces.create({ slug: ws, owner: owner.id });
  projects = [`${ws}-docs`, `${ws}-wiki`];
  for (const slug of projects) await stack.accounts.workspaces.createProject({ slug, workspace: ws });
  const sso = ssoOwner(stack, owner);
  await sso.claimDomain(ws, DOMAIN);
  await sso.configureProvider(ws, { issuer: 'https://idp.acme-scim.test', clientId: 'svc', clientSecret: 'secret' });
  await sso.store.savePolicy(
    ws,
    { defaultRole: 'VIEWER', required: false, groupRoles: [{ group: 'svc-admins', role: 'ADMIN' }] },
    Date.now(),
  );
  ownerKey = (await stack.accounts.keys.createUserKey({ userId: owner.id })).key;
  // A second gateway on the same Redis: "every replica" (docs/redis-schema.md "Invalidation").
  const port = await freePort();
  const config = loadConfig({
    NODE_ENV: 'test',
    REDIS_URL: stack.redis.url,
    AUTH_URL: stack.authUrl,
    BASE_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'error',
  });
  const gw = await startGateway({ config: { ...config, port }, logger: createLogger({ service: 'gw2', level: 'error', silent: true }) });
  second = { url: `http://127.0.0.1:${port}`, close: () => gw.close() };
  await waitFor(async () => (await fetch(`${second.url}/readyz`)).ok, 'the second gateway to reach Redis');
});
after(async () => {
  await second?.close();
  await stack?.close();
});

test('the owner makes a SCIM token over the management API: its value shown once, the list shows its prefix only', async () => {
  const made = await rest('POST', `/api/v1/workspaces/${ws}/scim/tokens`);
  assert.equal(made.status, 201, JSON.stringify(made.body));
  token = String(made.body['token']);
  assert.match(token, /^svc-scim-[0-9A-Za-z]{28}$/);
  assert.equal(made.body['endpoint'], `${stack.authUrl}/scim/v2/${ws}`);
  scim = scimClient(String(made.body['endpoint']), token);
  const view = await rest('GET', `/api/v1/workspaces/${ws}/scim`);
  assert.equal(view.status, 200);
  assert.ok(!JSON.stringify(view.body).includes(token.slice(13)), 'no listing holds the value');
  assert.deepEqual(
    (view.body['tokens'] as { prefix: string }[]).map((t) => t.prefix),
    [`${token.slice(0, 13)}...`],
  );
  const actions = (await stack.accounts.audit.page(ws, { limit: 20 })).entries.map((e) => e.action);
  assert.ok(actions.includes('scim.token_created'));
});

test('discovery (RFC 7644 §4) says what svc offers, as application/scim+json', async () => {
  const config = await scim('GET', '/ServiceProviderConfig');
  assert.equal(config.status, 200);
  assert.match(config.type, /^application\/scim\+json/);
  assert.deepEqual(
    [config.body['patch'], config.body['bulk']],
    [{ supported: true }, { supported: false, maxOperations: 0, maxPayloadSize: 0 }],
  );
  const types = await scim('GET', '/ResourceTypes');
  assert.deepEqual(
    types.body.Resources?.map((r) => r['endpoint']),
    ['/Users', '/Groups'],
  );
  const schemas = await scim('GET', '/Schemas');
  assert.deepEqual(
    schemas.body.Resources?.map((r) => r['id']),
    [USER, GROUP],
  );
});

test('every credential but the workspace’s live SCIM token is refused 401 in the SCIM error shape', async () => {
  const other = `other-${tag()}`;
  const owner2 = await stack.accounts.users.create({ email: `o2-${tag()}@elsewhere.test`, password: PASSWORD, emailVerified: true });
  await stack.accounts.workspaces.create({ slug: other, owner: owner2.id });
  const key2 = (await stack.accounts.keys.createUserKey({ userId: owner2.id })).key;
  const otherToken = String((await rest('POST', `/api/v1/workspaces/${other}/scim/tokens`, key2)).body['token']);
  const revoked = await rest('POST', `/api/v1/workspaces/${ws}/scim/tokens`);
  assert.equal((await rest('DELETE', `/api/v1/workspaces/${ws}/scim/tokens/${String(revoked.body['id'])}`)).status, 200);
  const base = `${stack.authUrl}/scim/v2/${ws}`;
  const cases: [string, Record<string, string>][] = [
    ['no Authorization', {}],
    ['a malformed token', { authorization: 'Bearer svc-scim-nope' }],
    ['a token with a wrong checksum', { authorization: `Bearer ${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}` }],
    ['the owner’s personal key', { authorization: `Bearer ${ownerKey}` }],
    ['another workspace’s token', { authorization: `Bearer ${otherToken}` }],
    ['a revoked token', { authorization: `Bearer ${String(revoked.body['token'])}` }],
    ['Basic authentication', { authorization: `Basic ${Buffer.from(`x:${token}`).toString('base64')}` }],
  ];
  for (const [what, headers] of cases) {
    const res = await fetch(`${base}/Users`, { headers });
    const body = (await res.json()) as ScimAnswer['body'];
    assert.equal(res.status, 401, what);
    assert.deepEqual(body, { schemas: [ERROR], status: '401', detail: body.detail }, what);
    assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/, what);
  }
});

test('Okta and Entra ID provision people: accounts made at the proven domain, role the policy’s default, found by their filters', async () => {
  const ann = `ann-${tag()}@${DOMAIN}`;
  const bob = `bob-${tag()}@${DOMAIN.toUpperCase()}`;
  const a = await provisioned(ann);
  const b = await scim('POST', '/Users', entraUser(bob, `entra-${tag()}`));
  assert.equal(b.status, 201, JSON.stringify(b.body));
  assert.equal(b.body['userName'], bob);
  assert.deepEqual(await roles(a.userId), ['VIEWER', 'VIEWER']);
  const bobUser = await stack.accounts.users.findByEmail(bob.toLowerCase());
  assert.ok(bobUser?.emailVerifiedAt, 'the account of the address is made, its address proven by the directory');
  // Entra ID's and Okta's look-ups before a create (userName case-insensitively, externalId case-exactly).
  const byName = await scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${ann.toUpperCase()}"`)}`);
  assert.deepEqual([byName.body.totalResults, byName.body.Resources?.[0]?.['id']], [1, a.id]);
  const byExternal = await scim('GET', `/Users?filter=${encodeURIComponent(`externalId eq "${String(b.body['externalId'])}"`)}`);
  assert.deepEqual([byExternal.body.totalResults, byExternal.body.Resources?.[0]?.['id']], [1, b.body.id]);
  const none = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "nobody@acme-scim.test"')}`);
  assert.deepEqual([none.status, none.body.totalResults, none.body.Resources], [200, 0, []]);
  // Okta's paging: startIndex 1-based, count bounded.
  const page = await scim('GET', '/Users?startIndex=2&count=1');
  assert.deepEqual([page.body['startIndex'], page.body['itemsPerPage'], page.body.totalResults], [2, 1, 2]);
  // A second create of the same userName is a uniqueness conflict (RFC 7644 §3.3).
  const again = await scim('POST', '/Users', oktaUser(ann));
  assert.deepEqual([again.status, again.body.scimType], [409, 'uniqueness']);
});

/** Each way Entra ID and Okta deactivate a person (their SCIM guides), each undone by its own reactivation. */
const DEACTIVATIONS: [string, unknown[], unknown[]][] = [
  [
    'Okta: replace without a path, value object',
    [{ op: 'replace', value: { active: false } }],
    [{ op: 'replace', value: { active: true } }],
  ],
  [
    'RFC 7644 §3.5.2.3: replace with a path',
    [{ op: 'replace', path: 'active', value: false }],
    [{ op: 'replace', path: 'active', value: true }],
  ],
  [
    'Entra ID: Replace, path, "False" as a string',
    [{ op: 'Replace', path: 'active', value: 'False' }],
    [{ op: 'Replace', path: 'active', value: 'True' }],
  ],
  [
    'Entra ID: REPLACE without a path, "false"',
    [{ op: 'REPLACE', value: { active: 'false' } }],
    [{ op: 'Add', path: 'active', value: 'true' }],
  ],
];

test('every PATCH shape of Entra ID and Okta deactivates the person (roles gone) and reactivates them (roles back)', async () => {
  const { id, userId } = await provisioned(`pat-${tag()}@${DOMAIN}`);
  for (const [shape, off, on] of DEACTIVATIONS) {
    const r = await scim('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: off });
    assert.equal(r.status, 200, `${shape}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body['active'], false, shape);
    assert.deepEqual(await roles(userId), ['NONE', 'NONE'], shape);
    const back = await scim('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: on });
    assert.equal(back.body['active'], true, shape);
    assert.deepEqual(await roles(userId), ['VIEWER', 'VIEWER'], shape);
  }
  // PUT (Okta's older shape) with active false, then DELETE: gone, and so are the roles.
  const put = await scim('PUT', `/Users/${id}`, { ...oktaUser(`pat-renamed-${tag()}@${DOMAIN}`), active: false });
  assert.equal(put.body['active'], false);
  assert.deepEqual(await roles(userId), ['NONE', 'NONE']);
  assert.equal((await scim('DELETE', `/Users/${id}`)).status, 204);
  assert.equal((await scim('GET', `/Users/${id}`)).status, 404);
});

test('groups map to roles through the workspace’s SSO policy: a member of svc-admins is ADMIN, removed is the default again', async () => {
  const { id, userId } = await provisioned(`grp-${tag()}@${DOMAIN}`);
  const group = await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'svc-admins', members: [] });
  assert.equal(group.status, 201, JSON.stringify(group.body));
  const gid = group.body.id!;
  // Entra ID adds a member with a path and a list of {value} (its "Add" capitalised).
  await scim('PATCH', `/Groups/${gid}`, { schemas: [PATCH], Operations: [{ op: 'Add', path: 'members', value: [{ value: id }] }] });
  assert.deepEqual(await roles(userId), ['ADMIN', 'ADMIN']);
  // Entra ID asks whether a person is a member this way.
  const member = await scim(
    'GET',
    `/Groups?filter=${encodeURIComponent(`id eq "${gid}" and members[value eq "${id}"]`)}&excludedAttributes=members`,
  );
  assert.deepEqual([member.body.totalResults, member.body.Resources?.[0]?.['members']], [1, undefined]);
  // Okta removes a member by a filtered path.
  await scim('PATCH', `/Groups/${gid}`, { schemas: [PATCH], Operations: [{ op: 'remove', path: `members[value eq "${id}"]` }] });
  assert.deepEqual(await roles(userId), ['VIEWER', 'VIEWER']);
  // Okta renames with replace and no path ({id, displayName}): no longer the mapped name.
  await scim('PATCH', `/Groups/${gid}`, { schemas: [PATCH], Operations: [{ op: 'add', path: 'members', value: [{ value: id }] }] });
  assert.deepEqual(await roles(userId), ['ADMIN', 'ADMIN']);
  const renamed = await scim('PATCH', `/Groups/${gid}`, {
    schemas: [PATCH],
    Operations: [{ op: 'replace', value: { id: gid, displayName: 'former-admins' } }],
  });
  assert.equal(renamed.body['displayName'], 'former-admins');
  assert.deepEqual(await roles(userId), ['VIEWER', 'VIEWER']);
  assert.equal((await scim('DELETE', `/Groups/${gid}`)).status, 204);
});

test('deprovisioning ends the person’s access on both gateways right after the SCIM call: personal key refused, roles gone, audited', async () => {
  const email = `dep-${tag()}@${DOMAIN}`;
  const { id, userId } = await provisioned(email);
  const key = (await stack.accounts.keys.createUserKey({ userId })).key;
  const gateways = [stack.baseUrl, second.url];
  // Both gateways answer and cache the key's resolution first.
  for (const url of gateways) assert.equal((await mcpCall(url, projects[0]!, key)).status, 200, url);
  const r = await scim('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] });
  assert.equal(r.status, 200);
  // "Within seconds on every replica": each gateway refuses it before a bounded deadline (no sleep).
  for (const url of gateways)
    await waitFor(async () => (await mcpCall(url, projects[0]!, key)).status === 401, {
      timeout: 5_000,
      message: `${url} to refuse the deprovisioned person's key`,
    });
  assert.deepEqual(await roles(userId), ['NONE', 'NONE']);
  const entry = (await stack.accounts.audit.page(ws, { limit: 50 })).entries.find((e) => e.action === 'scim.user_deprovisioned');
  assert.ok(entry, 'audited');
  assert.equal(entry.actor, `scim:${token.slice(0, 13)}...`);
  assert.equal(entry.detail?.['personal_keys_revoked'], '1');
  assert.equal(entry.detail?.['scope'], 'account');
});

/** Requests a directory must be refused, each with the SCIM status and scimType RFC 7644 §3.12 names. */
const REFUSED: [string, string, string, unknown, number, string | undefined][] = [
  ['a filter svc does not read', 'GET', `/Users?filter=${encodeURIComponent('userName co "a"')}`, undefined, 400, 'invalidFilter'],
  ['a filter on an unknown attribute', 'GET', `/Users?filter=${encodeURIComponent('title eq "x"')}`, undefined, 400, 'invalidFilter'],
  [
    'a filter joined by or',
    'GET',
    `/Users?filter=${encodeURIComponent('userName eq "a" or userName eq "b"')}`,
    undefined,
    400,
    'invalidFilter',
  ],
  ['a count that is no integer', 'GET', '/Users?count=ten', undefined, 400, 'invalidValue'],
  ['a body that is not JSON', 'POST', '/Users', '{"userName":', 400, 'invalidSyntax'],
  ['a user without userName', 'POST', '/Users', { schemas: [USER] }, 400, 'invalidValue'],
  ['a userName of the wrong type', 'POST', '/Users', { schemas: [USER], userName: 42 }, 400, 'invalidValue'],
  ['an address at a domain the workspace did not prove', 'POST', '/Users', oktaUser('victim@gmail.test'), 400, 'invalidValue'],
  ['a userName that is no address, no email', 'POST', '/Users', { schemas: [USER], userName: 'ann' }, 400, 'invalidValue'],
  ['active that is not a boolean', 'POST', '/Users', { ...oktaUser(`x-${Date.now()}@${DOMAIN}`), active: 'maybe' }, 400, 'invalidValue'],
  [
    'a PATCH without the PatchOp schema',
    'PATCH',
    '/Users/{id}',
    { Operations: [{ op: 'replace', path: 'active', value: false }] },
    400,
    'invalidSyntax',
  ],
  [
    'a PATCH op that is not one',
    'PATCH',
    '/Users/{id}',
    { schemas: [PATCH], Operations: [{ op: 'delete', path: 'active' }] },
    400,
    'invalidSyntax',
  ],
  ['a remove without a path', 'PATCH', '/Users/{id}', { schemas: [PATCH], Operations: [{ op: 'remove' }] }, 400, 'noTarget'],
  [
    'a change of id',
    'PATCH',
    '/Users/{id}',
    { schemas: [PATCH], Operations: [{ op: 'replace', path: 'id', value: 'mine' }] },
    400,
    'mutability',
  ],
  [
    'too many PATCH operations',
    'PATCH',
    '/Users/{id}',
    { schemas: [PATCH], Operations: Array(101).fill({ op: 'replace', path: 'active', value: true }) },
    400,
    'invalidSyntax',
  ],
  [
    'a group member who is not a user',
    'POST',
    '/Groups',
    { schemas: [GROUP], displayName: 'g', members: [{ value: 'nobody' }] },
    400,
    'invalidValue',
  ],
  [
    'a group PATCH path svc does not read',
    'PATCH',
    '/Groups/{gid}',
    { schemas: [PATCH], Operations: [{ op: 'add', path: 'members.display', value: 'x' }] },
    400,
    'invalidPath',
  ],
  ['a body over the bound', 'POST', '/Users', { schemas: [USER], userName: 'x'.repeat(70_000) }, 413, undefined],
  ['an unknown user', 'GET', '/Users/nobody', undefined, 404, undefined],
  ['an unknown endpoint', 'GET', '/Me', undefined, 404, undefined],
  ['bulk', 'POST', '/Bulk', { schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'], Operations: [] }, 501, undefined],
];

test('each bad request is refused with its status and scimType in RFC 7644 §3.12’s shape, never a 500 or a page', async () => {
  const { id } = await provisioned(`bad-${tag()}@${DOMAIN}`);
  const gid = (await scim('POST', '/Groups', { schemas: [GROUP], displayName: `g-${tag()}` })).body.id!;
  for (const [what, method, path, body, status, scimType] of REFUSED) {
    const r = await scim(method, path.replace('{id}', id).replace('{gid}', gid), body);
    assert.equal(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
    assert.match(r.type, /^application\/scim\+json/, what);
    assert.deepEqual(r.body.schemas, [ERROR], what);
    assert.equal(r.body.status, String(status), what);
    assert.equal(r.body.scimType, scimType, what);
    assert.ok(typeof r.body.detail === 'string' && r.body.detail.length > 0 && !/\bat .*\.ts:\d+/.test(r.body.detail), what);
  }
  // The stranger's account was neither made nor touched.
  assert.equal(await stack.accounts.users.findByEmail('victim@gmail.test'), null);
});

test('the workspace’s owner, whose address is at its proven domain, is not the directory’s to manage', async () => {
  const domain = `boss-${tag()}.test`;
  const owner = await stack.accounts.users.create({ email: `boss@${domain}`, password: PASSWORD, emailVerified: true });
  const slug = `boss-${tag()}`;
  await stack.accounts.workspaces.create({ slug, owner: owner.id });
  await ssoOwner(stack, owner).claimDomain(slug, domain);
  const key = (await stack.accounts.keys.createUserKey({ userId: owner.id })).key;
  const made = await rest('POST', `/api/v1/workspaces/${slug}/scim/tokens`, key);
  const directory = scimClient(String(made.body['endpoint']), String(made.body['token']));
  const r = await directory('POST', '/Users', oktaUser(owner.email));
  assert.deepEqual([r.status, r.body.scimType, r.body.status], [403, undefined, '403']);
  // The owner's key still works: nothing of theirs was ended.
  assert.equal((await rest('GET', `/api/v1/workspaces/${slug}/scim`, key)).status, 200);
});

test('each workspace has its own SCIM bucket: past SCIM_REQUESTS_PER_MINUTE its directory gets 429 in the SCIM shape, another’s does not', async () => {
  const made = [];
  for (const name of ['flood', 'calm']) {
    const owner = await stack.accounts.users.create({ email: `${name}-${tag()}@elsewhere.test`, password: PASSWORD, emailVerified: true });
    const slug = `${name}-${tag()}`;
    await stack.accounts.workspaces.create({ slug, owner: owner.id });
    const key = (await stack.accounts.keys.createUserKey({ userId: owner.id })).key;
    const r = await rest('POST', `/api/v1/workspaces/${slug}/scim/tokens`, key);
    made.push(scimClient(String(r.body['endpoint']), String(r.body['token'])));
  }
  const [flood, calm] = made as [ReturnType<typeof scimClient>, ReturnType<typeof scimClient>];
  const statuses = new Map<number, number>();
  for (let i = 0; i < SCIM_REQUESTS_PER_MINUTE + 1; i++) {
    const r = await flood('GET', '/ServiceProviderConfig');
    statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    if (r.status === 429) assert.deepEqual([r.body.status, r.body.scimType, r.body.schemas], ['429', undefined, [ERROR]]);
  }
  // The window starts at the workspace's first request and lasts a minute (@svc/limits): exactly the limit passes.
  assert.deepEqual([...statuses].sort(), [
    [200, SCIM_REQUESTS_PER_MINUTE],
    [429, 1],
  ]);
  assert.equal((await flood('GET', '/Users')).status, 429, 'spent');
  assert.equal((await calm('GET', '/Users')).status, 200, 'another workspace’s share is its own');
});
