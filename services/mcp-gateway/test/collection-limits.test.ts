/**
 * Collection limits at the gateway (docs/management.md "Collection limits"), with production's
 * values: the management API answers 409 naming the limit and creates again once something is
 * revoked; svc_request_access answers a tool error when too many requests await a decision.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { COLLECTION_LIMITS, K, connectRedis, type Redis } from '@svc/accounts';
import { call, post, seed, startFixture, type GatewayFixture, type Seeded } from './support.ts';

let f: GatewayFixture;
let owner: Seeded;
let personal: string;
let client: Redis;

before(async () => {
  f = await startFixture();
  owner = await seed(f.accounts, { plan: 'TEAM' });
  personal = (await f.accounts.keys.createUserKey({ userId: owner.userId })).key;
  client = connectRedis(f.redis.url);
});
after(async () => {
  client.disconnect();
  await f.close();
});

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(f.url + path, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': personal },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed response body: its shape is what the assertions check
  return { status: res.status, body: (await res.json()) as any };
}

test('the 501st live key of a project is 409 naming the limit; revoking one makes room', async () => {
  // seed made one key; the project's limit is production's.
  for (let i = 1; i < COLLECTION_LIMITS.keysPerProject; i++)
    await f.accounts.keys.createProjectKey({ project: owner.project, workspace: owner.workspace, name: `k${i}` });
  const path = `/api/v1/projects/${owner.project}/keys`;
  const refused = await api('POST', path, { name: 'one more', level: 'EDITOR' });
  assert.equal(refused.status, 409, JSON.stringify(refused.body));
  assert.equal(refused.body.error.message, 'This project already has 500 live API keys, the limit. Revoke keys you no longer use.');
  assert.equal((await api('DELETE', `${path}/${owner.keyId}`)).status, 200);
  assert.equal((await api('POST', path, { name: 'one more', level: 'EDITOR' })).status, 201);
});

test('the 101st live service account of a workspace is 409 naming the limit; revoking one makes room', async () => {
  const path = `/api/v1/workspaces/${owner.workspace}/service-accounts`;
  const first = await api('POST', path, { name: 'ci' });
  assert.equal(first.status, 201, JSON.stringify(first.body));
  for (let i = 1; i < COLLECTION_LIMITS.serviceAccountsPerWorkspace; i++)
    await f.accounts.bots.create({ workspace: owner.workspace, name: `ci${i}` });
  const refused = await api('POST', path, { name: 'one more' });
  assert.equal(refused.status, 409, JSON.stringify(refused.body));
  assert.match(refused.body.error.message, /^This workspace already has 100 live service accounts, the limit\./);
  assert.equal((await api('DELETE', `${path}/${first.body.id}`)).status, 200);
  assert.equal((await api('POST', path, { name: 'one more' })).status, 201);
});

test('svc_request_access past the pending requests of a project: a tool error naming the limit', async () => {
  const viewer = await seed(f.accounts, { level: 'VIEWER' });
  // The project's pending set filled to the limit as 500 other requesters would.
  const ids = Array.from({ length: COLLECTION_LIMITS.pendingRequestsPerProject }, (_, i) => `ar_other${i}`);
  await client.sadd(K.projectPendingRequests(viewer.project), ...ids);
  const ask = () =>
    post(f.url, `/mcp/${viewer.project}`, call('svc_request_access', { requested_level: 'EDITOR', reason: 'deploys' }), {
      'X-API-Key': viewer.key,
    });
  const refused = await ask();
  assert.equal(refused.status, 200);
  assert.equal(refused.body.result.isError, true, JSON.stringify(refused.body));
  assert.match(refused.body.result.content[0].text, /This project already has 500 access requests awaiting a decision, the limit\./);
  assert.equal((await f.accounts.accessRequests.list(viewer.project)).length, 0, 'no request was stored');
  await client.srem(K.projectPendingRequests(viewer.project), 'ar_other0');
  const asked = await ask();
  assert.equal(asked.body.result.structuredContent.status, 'pending', JSON.stringify(asked.body));
});

test('the 201st project of a workspace and the 1001st member of a project are 409 naming the limit', async () => {
  const ws = await seed(f.accounts);
  personal = (await f.accounts.keys.createUserKey({ userId: ws.userId })).key;
  for (let i = 1; i < COLLECTION_LIMITS.projectsPerWorkspace; i++)
    await f.accounts.workspaces.createProject({ slug: `${ws.project}-${i}`, workspace: ws.workspace });
  const project = await api('POST', `/api/v1/workspaces/${ws.workspace}/projects`, { name: 'one more' });
  assert.equal(project.status, 409, JSON.stringify(project.body));
  assert.equal(project.body.error.message, 'This workspace already has 200 projects, the limit.');

  for (let i = 0; i < COLLECTION_LIMITS.membersPerProject; i++) await f.accounts.workspaces.setRole(ws.project, `user_m${i}`, 'VIEWER');
  const newcomer = await seed(f.accounts);
  const member = await api('POST', `/api/v1/projects/${ws.project}/members`, { email: newcomer.email, role: 'VIEWER' });
  assert.equal(member.status, 409, JSON.stringify(member.body));
  assert.match(member.body.error.message, /^This project already has 1000 members, the limit\./);
  assert.equal((await api('DELETE', `/api/v1/projects/${ws.project}/members/user_m0`)).status, 200);
  assert.equal((await api('POST', `/api/v1/projects/${ws.project}/members`, { email: newcomer.email, role: 'VIEWER' })).status, 201);
});
