/**
 * Who did what, through what (docs/audit.md "Who and through what"): every entry names its principal
 * (a person by id and address, a service account, a key, the operator, svc itself) and its agent (the
 * OAuth client by client_id, name and whether svc vouches for it; else the API key by prefix; svc's
 * own pages, svc-admin, svc), and a delegation chain, empty until a token carries one. A writer that
 * names only the actor still gets all three fields, read from the actor's label.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AUDIT_AGENTS, connectRedis, createAccounts, oidcRecordKey, type Accounts, type AuditEntry, type Redis } from '@svc/accounts';
import { startRedis, type RedisFixture } from '@svc/testkit';

let redis: RedisFixture;
let client: Redis;
let accounts: Accounts;

before(async () => {
  redis = await startRedis();
  client = connectRedis(redis.url);
  accounts = createAccounts(client, { pepper: 'p'.repeat(32), bcryptCost: 4 });
});
after(async () => {
  client.disconnect();
  await redis.stop();
});

const newest = async (workspace: string): Promise<AuditEntry> => (await accounts.audit.page(workspace, { limit: 1 })).entries[0]!;
const from = { source: '203.0.113.9', requestId: 'r' };

test('a person acting on their own account: by user id and address, through svc’s own pages', async () => {
  const user = await accounts.users.create({ email: 'ada@example.com', emailVerified: true, password: 'correct horse battery' });
  await accounts.audit.recordOwn(user, 'signin.succeeded', from);
  const e = await newest(user.workspace);
  assert.deepEqual(e.principal, { type: 'user', id: user.id, label: 'ada@example.com' });
  assert.deepEqual(e.agent, AUDIT_AGENTS.web);
  assert.deepEqual(e.chain, []);
});

test('a writer that names only the actor: the principal read from its label, the agent when the label tells it', async () => {
  const cases: [string, object, object][] = [
    ['svc', { type: 'svc', id: '', label: 'svc' }, AUDIT_AGENTS.svc],
    ['service:svc-admin', { type: 'operator', id: '', label: 'service:svc-admin' }, AUDIT_AGENTS.operator],
    [
      'key:svc-Ab3x',
      { type: 'key', id: '', label: 'key:svc-Ab3x' },
      { type: 'api_key', id: 'svc-Ab3x', name: '', verified: false, key: 'svc-Ab3x' },
    ],
    ['service_account:bot_1', { type: 'service_account', id: 'bot_1', label: 'service_account:bot_1' }, AUDIT_AGENTS.unknown],
    ['grace@example.com', { type: 'user', id: '', label: 'grace@example.com' }, AUDIT_AGENTS.unknown],
    ['leak report', { type: 'unknown', id: '', label: 'leak report' }, AUDIT_AGENTS.unknown],
  ];
  for (const [actor, principal, agent] of cases) {
    await accounts.audit.record({ workspace: 'ws-labels', actor, action: 'key.revoked', target: 't', ...from });
    const e = await newest('ws-labels');
    assert.deepEqual([e.principal, e.agent, e.chain], [principal, agent, []], actor);
  }
});

test('the agent of an OAuth client: first-party ones by profile and verified; registered, metadata-document and service-account clients by their own names, unverified', async () => {
  const owner = await accounts.users.create({ email: 'owner@example.com', emailVerified: true, password: 'correct horse battery' });
  await accounts.workspaces.createProject({ slug: 'parties', workspace: owner.workspace });
  // A registered client as the auth-service stores it (docs/redis-schema.md), its name with a zero-width space.
  await client.hset(oidcRecordKey('Client', 'dcr-1'), 'payload', JSON.stringify({ client_name: 'Acme\u200b Agent' }));
  const { bot } = await accounts.bots.create({ workspace: owner.workspace, name: 'nightly-sync' });
  const cli = await accounts.keys.createUserKey({ userId: owner.id, clientId: 'svc-cli' });
  const own = await accounts.keys.createUserKey({ userId: owner.id });
  const projectKey = await accounts.keys.createProjectKey({ project: 'parties', workspace: owner.workspace, level: 'EDITOR', name: 'ci' });
  const prefixOf = async (id: string) => (await accounts.keys.getById(id))!.prefix;
  const agents = accounts.auditAgents;
  assert.deepEqual(await agents.of({ clientId: 'svc-cli' }), {
    type: 'oauth_client',
    id: 'svc-cli',
    name: 'svc command-line tool',
    verified: true,
    key: null,
  });
  assert.deepEqual(await agents.of({ clientId: 'dcr-1' }), {
    type: 'oauth_client',
    id: 'dcr-1',
    name: 'Acme Agent',
    verified: false,
    key: null,
  });
  const cimd = 'https://agent.example/client.json';
  assert.deepEqual(await agents.of({ clientId: cimd }), { type: 'oauth_client', id: cimd, name: cimd, verified: false, key: null });
  assert.deepEqual(await agents.of({ clientId: bot.id }), {
    type: 'oauth_client',
    id: bot.id,
    name: 'nightly-sync',
    verified: false,
    key: null,
  });
  // The personal key svc-cli was given speaks for svc-cli; the gateway's tool caller names an API key `svc-key:<id>`.
  assert.deepEqual(await agents.of({ keyId: cli.id }), {
    type: 'oauth_client',
    id: 'svc-cli',
    name: 'svc command-line tool',
    verified: true,
    key: await prefixOf(cli.id),
  });
  const ownPrefix = await prefixOf(own.id);
  assert.deepEqual(await agents.of({ clientId: `svc-key:${own.id}` }), {
    type: 'api_key',
    id: ownPrefix,
    name: 'personal key',
    verified: false,
    key: ownPrefix,
  });
  const ciPrefix = await prefixOf(projectKey.id);
  assert.deepEqual(await agents.of({ keyId: projectKey.id }), {
    type: 'api_key',
    id: ciPrefix,
    name: 'ci',
    verified: false,
    key: ciPrefix,
  });
  assert.deepEqual(await agents.of({ keyId: 'key_gone' }), AUDIT_AGENTS.unknown);
});

test('an access request names its requester and the agent it came through: the origin’s, else a key its own', async () => {
  const owner = await accounts.users.create({ email: 'admin@example.com', emailVerified: true, password: 'correct horse battery' });
  const asker = await accounts.users.create({ email: 'asker@example.com', emailVerified: true, password: 'correct horse battery' });
  await accounts.workspaces.createProject({ slug: 'asked', workspace: owner.workspace });
  await accounts.accessRequests.create(
    { project: 'asked', requester: { type: 'user', id: asker.id, label: asker.email }, requestedLevel: 'EDITOR', reason: 'to help' },
    { ...from, agent: { clientId: 'svc-mcp' } },
  );
  const byPerson = await newest(owner.workspace);
  assert.equal(byPerson.action, 'access_request.created');
  assert.deepEqual(byPerson.principal, { type: 'user', id: asker.id, label: 'asker@example.com' });
  assert.deepEqual(byPerson.agent, { type: 'oauth_client', id: 'svc-mcp', name: 'svc MCP client', verified: true, key: null });

  const key = await accounts.keys.createProjectKey({ project: 'asked', workspace: owner.workspace, level: 'VIEWER', name: 'reader' });
  const prefix = (await accounts.keys.getById(key.id))!.prefix;
  await accounts.accessRequests.create(
    { project: 'asked', requester: { type: 'key', id: key.id, label: 'reader' }, requestedLevel: 'EDITOR', reason: 'to write' },
    from,
  );
  const byKey = await newest(owner.workspace);
  assert.deepEqual(
    [byKey.actor, byKey.principal, byKey.agent],
    [
      `key:${prefix}`,
      { type: 'key', id: key.id, label: `key:${prefix}` },
      { type: 'api_key', id: prefix, name: 'reader', verified: false, key: prefix },
    ],
  );
});
