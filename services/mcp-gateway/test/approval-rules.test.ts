/**
 * Which calls an upstream tool's `approval` holds (docs/approvals.md "The rule"), over MCP with
 * real credentials: `agents` holds a token of a third-party OAuth client and lets an API key run;
 * `below:ADMIN` holds an EDITOR key and lets an ADMIN key run; `none` holds nothing. A held call
 * never reaches the upstream, and once approved runs only for the client it came through: another
 * app of the same person neither collects nor withdraws it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { waitFor } from '@svc/testkit';
import { plantAccessToken, post, call, seed, startFixture, startPlainUpstream, type GatewayFixture, type Seeded } from './support.ts';

let f: GatewayFixture;
let owner: Seeded;
let personal: string;
let adminKey: string;
let upstream: Awaited<ReturnType<typeof startPlainUpstream>>;

before(async () => {
  f = await startFixture({ UPSTREAM_ALLOWED_PRIVATE: '127.0.0.1/32' });
  owner = await seed(f.accounts, { plan: 'TEAM' });
  personal = (await f.accounts.keys.createUserKey({ userId: owner.userId })).key;
  adminKey = (await f.accounts.keys.createProjectKey({ project: owner.project, workspace: owner.workspace, level: 'ADMIN', name: 'admin' }))
    .key;
  upstream = await startPlainUpstream();
  const added = await post(
    f.url,
    `/api/v1/projects/${owner.project}/upstreams`,
    { name: 'notes', url: upstream.url },
    { 'x-api-key': personal },
  );
  assert.equal(added.status, 201, added.text);
});
after(async () => {
  await upstream?.close();
  await f?.close();
});

/**
 * Sets read_notes's rule, then waits until this gateway's tool set has it (its invalidation message
 * arrives on another connection): `probe` is a call whose outcome the new rule changes.
 */
async function rule(approval: string, probe: { headers: Record<string, string>; expect: 'ran' | 'held' }): Promise<void> {
  const res = await fetch(`${f.url}/api/v1/projects/${owner.project}/upstreams/notes/tools/read_notes`, {
    method: 'PATCH',
    headers: { 'x-api-key': personal, 'content-type': 'application/json' },
    body: JSON.stringify({ approval }),
  });
  assert.equal(res.status, 200, await res.text());
  await waitFor(async () => (await outcome(probe.headers)) === probe.expect, `the gateway to apply approval ${approval}`);
}

/** Calls notes__read_notes: 'ran', or 'held' with the approval's gate. */
async function outcome(headers: Record<string, string>): Promise<'ran' | 'held'> {
  const before = upstream.received.filter((r) => r.method === 'tools/call').length;
  const res = await post(f.url, `/mcp/${owner.project}`, call('notes__read_notes'), headers);
  const ran = upstream.received.filter((r) => r.method === 'tools/call').length - before;
  if (res.body.error) {
    assert.equal(res.body.error.data.gate, 'approval', res.text);
    assert.equal(ran, 0, 'a held call does not reach the upstream');
    return 'held';
  }
  assert.equal(res.body.result.content[0].text, 'done', res.text);
  assert.equal(ran, 1);
  return 'ran';
}

test('agents: a third-party OAuth client is held, an API key runs', async () => {
  // plantAccessToken's client is a registered (third-party) one.
  const token = await plantAccessToken(f, { accountId: owner.userId, scope: 'mcp:admin', grantScope: 'mcp:admin', project: owner.project });
  assert.equal(await outcome({ Authorization: `Bearer ${token}` }), 'ran', 'before the rule');
  await rule('agents', { headers: { Authorization: `Bearer ${token}` }, expect: 'held' });
  assert.equal(await outcome({ Authorization: `Bearer ${token}` }), 'held');
  assert.equal(await outcome({ 'x-api-key': owner.key }), 'ran');
});

test('below:ADMIN: an EDITOR key is held, an ADMIN key runs; none holds nothing', async () => {
  await rule('below:ADMIN', { headers: { 'x-api-key': owner.key }, expect: 'held' });
  assert.equal(await outcome({ 'x-api-key': owner.key }), 'held');
  assert.equal(await outcome({ 'x-api-key': adminKey }), 'ran');
  await rule('none', { headers: { 'x-api-key': owner.key }, expect: 'ran' });
  assert.equal(await outcome({ 'x-api-key': owner.key }), 'ran');
});

test('an approved call is collected only through the client it came through, not by another app of the same person', async () => {
  const tokenOf = (clientId: string) =>
    plantAccessToken(f, { accountId: owner.userId, scope: 'mcp:admin', grantScope: 'mcp:admin', project: owner.project, clientId });
  const [mine, other] = [await tokenOf('app-one'), await tokenOf('app-two')];
  await rule('all', { headers: { Authorization: `Bearer ${mine}` }, expect: 'held' });
  const res = await post(f.url, `/mcp/${owner.project}`, call('notes__read_notes'), { Authorization: `Bearer ${mine}` });
  const id = String(res.body.error.data.approval_id);
  const decided = await post(
    f.url,
    `/api/v1/projects/${owner.project}/approvals/${id}/approve`,
    { call_hash: res.body.error.data.call_hash },
    { 'x-api-key': personal },
  );
  assert.equal(decided.status, 200, decided.text);
  const before = upstream.received.filter((r) => r.method === 'tools/call').length;
  const stranger = await post(f.url, `/mcp/${owner.project}`, call('svc_approval_status', { approval_id: id }), {
    Authorization: `Bearer ${other}`,
  });
  assert.match(stranger.body.result.content[0].text, /no approval/, stranger.text);
  assert.equal(upstream.received.filter((r) => r.method === 'tools/call').length, before, 'the other app ran nothing');
  const ran = await post(f.url, `/mcp/${owner.project}`, call('svc_approval_status', { approval_id: id }), {
    Authorization: `Bearer ${mine}`,
  });
  assert.equal(ran.body.result.structuredContent.status, 'done', ran.text);
  await rule('none', { headers: { Authorization: `Bearer ${mine}` }, expect: 'ran' });
});
