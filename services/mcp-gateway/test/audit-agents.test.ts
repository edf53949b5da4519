/**
 * Who did what through what, at the gateway's doors (docs/audit.md "Who and through what"): a
 * management change over REST is recorded with its principal (the person by user id, or the project
 * key) and its agent (the OAuth client the token was issued to, by client_id, name and whether svc
 * vouches for it; the personal key svc-cli was given as svc-cli's; an API key by its prefix); an
 * access request filed with the svc_request_access tool names the client too. The workspace's
 * export of all of it verifies (docs/audit.md "Chain").
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { oidcRecordKey, verifyAuditExport, type AuditEntry } from '@svc/accounts';
import { call, plantAccessToken, post, seed, startFixture, type GatewayFixture, type Seeded } from './support.ts';

let f: GatewayFixture;
let owner: Seeded;
let prefixOf: (id: string) => Promise<string>;

before(async () => {
  f = await startFixture({ RATE_LIMIT_SCALE: '1000' });
  owner = await seed(f.accounts, { level: 'ADMIN' });
  prefixOf = async (id) => (await f.accounts.keys.getById(id))!.prefix;
  // A registered client as the auth-service stores it (support.ts plants its tokens).
  await f.redis.client.hset(oidcRecordKey('Client', 'registered-client'), 'payload', JSON.stringify({ client_name: 'Acme Agent' }));
});
after(() => f.close());

const newest = async (): Promise<AuditEntry> => (await f.accounts.audit.page(owner.workspace, { limit: 1 })).entries[0]!;
const setNote = (headers: Record<string, string>, note: string) =>
  post(f.url, `/api/v1/projects/${owner.project}/keys/${owner.keyId}/note`, { note }, headers);

test('a change over REST names the project key, or the person and the client or key they came through', async () => {
  const byKey = await setNote({ 'x-api-key': owner.key }, 'by the key');
  assert.equal(byKey.status, 200, JSON.stringify(byKey.body));
  const keyPrefix = await prefixOf(owner.keyId);
  let e = await newest();
  assert.deepEqual(
    [e.action, e.actor, e.principal, e.agent],
    [
      'key.note_changed',
      `key:${keyPrefix}`,
      { type: 'key', id: owner.keyId, label: `key:${keyPrefix}` },
      { type: 'api_key', id: keyPrefix, name: 'test', verified: false, key: keyPrefix },
    ],
  );

  // The personal key of `svc login` speaks for svc-cli, a first-party client: verified.
  const cli = await f.accounts.keys.createUserKey({ userId: owner.userId, clientId: 'svc-cli' });
  assert.equal((await setNote({ 'x-api-key': cli.key }, 'by svc-cli')).status, 200);
  e = await newest();
  assert.deepEqual(
    [e.principal, e.agent],
    [
      { type: 'user', id: owner.userId, label: owner.email },
      { type: 'oauth_client', id: 'svc-cli', name: 'svc command-line tool', verified: true, key: await prefixOf(cli.id) },
    ],
  );

  // An OAuth token with mcp:admin: the registered client it was issued to, by its name, unverified.
  const token = await plantAccessToken(f, { accountId: owner.userId, scope: 'mcp:admin', grantScope: 'mcp:admin', project: owner.project });
  assert.equal((await setNote({ Authorization: `Bearer ${token}` }, 'by an agent')).status, 200);
  e = await newest();
  assert.deepEqual(
    [e.principal, e.agent, e.chain],
    [
      { type: 'user', id: owner.userId, label: owner.email },
      { type: 'oauth_client', id: 'registered-client', name: 'Acme Agent', verified: false, key: null },
      [],
    ],
  );
});

test('an access request filed with the svc_request_access tool names the OAuth client it came through', async () => {
  const asker = await f.accounts.users.create({
    email: `asker-${Date.now()}@example.com`,
    emailVerified: true,
    password: 'correct horse battery',
  });
  const token = await plantAccessToken(f, { accountId: asker.id, scope: 'mcp:read', grantScope: 'mcp:read', project: owner.project });
  const res = await post(
    f.url,
    `/mcp/${owner.project}`,
    call('svc_request_access', { requested_level: 'VIEWER', reason: 'to read the notes' }),
    {
      Authorization: `Bearer ${token}`,
    },
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.result.isError, undefined, JSON.stringify(res.body));
  const e = await newest();
  assert.deepEqual(
    [e.action, e.principal, e.agent],
    [
      'access_request.created',
      { type: 'user', id: asker.id, label: asker.email },
      { type: 'oauth_client', id: 'registered-client', name: 'Acme Agent', verified: false, key: null },
    ],
  );
});

test("the workspace's export over REST carries the chain, and verifies", async () => {
  const personal = (await f.accounts.keys.createUserKey({ userId: owner.userId })).key;
  const res = await fetch(`${f.url}/api/v1/workspaces/${owner.workspace}/audit?format=jsonl`, { headers: { 'x-api-key': personal } });
  assert.equal(res.status, 200);
  const lines = (await res.text()).split('\n');
  const verdict = await verifyAuditExport(lines);
  assert.equal(verdict.ok, true, JSON.stringify(verdict));
  assert.deepEqual(verdict.ok && [verdict.first, verdict.entries], [{ seq: 1, prev: null }, lines.filter(Boolean).length - 1]);
});
