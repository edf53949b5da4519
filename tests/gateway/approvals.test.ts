/**
 * Approval-gated tools (docs/approvals.md), with a real upstream MCP server and a real project key
 * as the caller: a call of a tool whose row says `approval: all` does not run but answers the
 * denial naming its approval (remediation `available`, a `task` hint); the project's admin sees
 * it over REST and approves it (the call hash they were shown); the caller's svc_approval_status
 * then runs it once, with the stored arguments, and every later poll reads the stored answer. A
 * denial and an expiry are final; another caller learns nothing of the approval; every step is in
 * the audit log.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { K } from '@svc/accounts';
import { TOOL_POLICIES } from '@svc/policy';
import { waitFor } from '@svc/testkit';
import { newPerson, startStack, type Stack } from '../support/stack.ts';
import { startSdkV1Upstream, type TestUpstream } from '../support/upstream-servers.ts';

/** A JSON answer as the tests read it: any member may be looked into. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked member by member below
type Json = Record<string, any>;

let stack: Stack;
let server: TestUpstream;
let owner: Awaited<ReturnType<typeof newPerson>> & { key: string };
let editorKey: string;
let otherKey: string;

async function api(key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${stack.baseUrl}${path}`, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

let rpcId = 1;
async function call(key: string, name: string, args: Record<string, unknown>) {
  const res = await fetch(`${stack.baseUrl}/mcp/${owner.slug}`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: rpcId++, method: 'tools/call', params: { name, arguments: args } }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** A held call: its approval id and call hash, after checking the denial's shape. */
async function held(args: Record<string, unknown>) {
  const res = await call(editorKey, 'notes__write_note', args);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const error = res.body['error'];
  assert.ok(error, JSON.stringify(res.body));
  assert.equal(error.code, -31010);
  assert.equal(error.data.gate, 'approval');
  assert.equal(error.data.status, 'pending');
  const id = String(error.data.approval_id);
  assert.match(id, /^apr_/);
  assert.deepEqual(error.data._meta['io.modelcontextprotocol/authorization'], {
    reason: 'insufficient_authorization',
    remediation: 'available',
    remediationHints: [
      { type: 'task', taskId: id },
      { type: 'tool', tool: 'svc_approval_status', arguments: { approval_id: id } },
    ],
  });
  return { id, callHash: String(error.data.call_hash) };
}

const status = (key: string, id: string) => call(key, 'svc_approval_status', { approval_id: id });
const writes = () => server.calls.filter((c) => c.rpcMethod === 'tools/call' && c.tool === 'write_note').length;
const decide = (id: string, verb: 'approve' | 'deny', body: unknown = {}) =>
  api(owner.key, 'POST', `/api/v1/projects/${owner.slug}/approvals/${id}/${verb}`, body);

before(async () => {
  stack = await startStack({ UPSTREAM_ALLOWED_PRIVATE: '127.0.0.1/32' });
  // FREE's 30 requests a minute is less than this file sends.
  const person = await newPerson(stack, 'approve', { plan: 'TEAM' });
  owner = { ...person, key: (await stack.accounts.keys.createUserKey({ userId: person.user.id })).key };
  server = await startSdkV1Upstream({ json: true, verify: { issuer: stack.baseUrl } });
  const added = await api(owner.key, 'POST', `/api/v1/projects/${owner.slug}/upstreams`, { name: 'notes', url: server.url });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  // The owner has no second factor, so step-up does not apply (docs/security.md "Step-up").
  const gated = await api(owner.key, 'PATCH', `/api/v1/projects/${owner.slug}/upstreams/notes/tools/write_note`, {
    approval: 'all',
    level: 'EDITOR',
  });
  assert.equal(gated.status, 200, JSON.stringify(gated.body));
  assert.equal(gated.body['tools'].find((t: Json) => t['name'] === 'write_note')['approval'], 'all');
  for (const name of ['writer', 'bystander']) {
    const made = await api(owner.key, 'POST', `/api/v1/projects/${owner.slug}/keys`, { name, level: 'EDITOR' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    if (name === 'writer') editorKey = made.body['key'] as string;
    else otherKey = made.body['key'] as string;
  }
});
after(async () => {
  await server?.close();
  await stack?.close();
});

test('a held call runs once after the approval, with its stored arguments, and its answer is kept', async () => {
  const { id, callHash } = await held({ title: 'plan', text: 'ship it' });
  assert.equal(writes(), 0, 'a held call does not reach the upstream');

  const waiting = await status(editorKey, id);
  assert.equal(waiting.body['result']?.structuredContent?.status, 'pending', JSON.stringify(waiting.body));

  const listed = await api(owner.key, 'GET', `/api/v1/projects/${owner.slug}/approvals`);
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  const row = listed.body['approvals'].find((a: Json) => a['id'] === id);
  assert.deepEqual(
    { tool: row['tool'], arguments: row['arguments'], status: row['status'], call_hash: row['call_hash'] },
    { tool: 'notes__write_note', arguments: { title: 'plan', text: 'ship it' }, status: 'pending', call_hash: callHash },
  );

  const wrong = await decide(id, 'approve', { call_hash: '0'.repeat(64) });
  assert.equal(wrong.status, 409, 'an approval of another call hash is refused');
  const ok = await decide(id, 'approve', { call_hash: callHash });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(ok.body['status'], 'approved');
  assert.equal((await decide(id, 'approve', { call_hash: callHash })).status, 409, 'an approval is given once');

  const stranger = await status(otherKey, id);
  assert.equal(stranger.body['result']?.isError, true, 'another caller cannot collect it');
  assert.match(stranger.body['result'].content[0].text, /no approval/);
  assert.equal(writes(), 0);

  const ran = await status(editorKey, id);
  assert.equal(ran.body['result']?.structuredContent?.status, 'done', JSON.stringify(ran.body));
  assert.equal(ran.body['result'].content[0].text, 'saved plan');
  assert.equal(writes(), 1);
  const write = server.calls.find((c) => c.tool === 'write_note')!;
  assert.deepEqual((write.body as Json)['params']['arguments'], { title: 'plan', text: 'ship it' });

  const again = await status(editorKey, id);
  assert.equal(again.body['result'].content[0].text, 'saved plan', 'a later poll reads the stored answer');
  assert.equal(writes(), 1, 'the call ran once');
});

test('a denied call never runs, and the denial is final', async () => {
  const before = writes();
  const { id, callHash } = await held({ title: 'no', text: 'never' });
  const denied = await decide(id, 'deny');
  assert.equal(denied.status, 200, JSON.stringify(denied.body));
  assert.equal((await decide(id, 'approve', { call_hash: callHash })).status, 409);
  const polled = await status(editorKey, id);
  assert.equal(polled.body['result']?.isError, true);
  assert.equal(polled.body['result'].structuredContent.status, 'denied');
  assert.equal(writes(), before);
});

test('an expired call never runs, approved or not', async () => {
  const before = writes();
  const pending = await held({ title: 'late', text: 'too late' });
  // Past its deadline without anyone waiting an hour: the record's own deadline is moved back.
  await stack.client.hset(K.approval(owner.slug, pending.id), 'expires_at', String(Date.now() - 1));
  assert.equal((await decide(pending.id, 'approve', { call_hash: pending.callHash })).status, 409);
  assert.equal((await status(editorKey, pending.id)).body['result'].structuredContent.status, 'expired');

  const approved = await held({ title: 'slow', text: 'collected late' });
  assert.equal((await decide(approved.id, 'approve', { call_hash: approved.callHash })).status, 200);
  await stack.client.hset(K.approval(owner.slug, approved.id), 'expires_at', String(Date.now() - 1));
  assert.equal((await status(editorKey, approved.id)).body['result'].structuredContent.status, 'expired');
  assert.equal(writes(), before);
});

test('many polls at once after the approval run the call once, and all read its one answer', async () => {
  const before = writes();
  const { id, callHash } = await held({ title: 'race', text: 'once' });
  assert.equal((await decide(id, 'approve', { call_hash: callHash })).status, 200);
  const polls = await Promise.all(Array.from({ length: 8 }, () => status(editorKey, id)));
  assert.equal(writes(), before + 1, 'the call ran once');
  const states = polls.map((p) => String(p.body['result']?.structuredContent?.status));
  assert.ok(
    states.every((s) => s === 'done' || s === 'running'),
    states.join(),
  );
  assert.equal((await status(editorKey, id)).body['result'].content[0].text, 'saved race');
});

test('the REST door holds the call too: 403 with the same denial, and the approval is followed over MCP', async () => {
  const before = writes();
  const res = await fetch(`${stack.baseUrl}/api/v1/projects/${owner.slug}/tools/notes__write_note`, {
    method: 'POST',
    headers: { 'x-api-key': editorKey, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'rest', text: 'held' }),
  });
  const body = (await res.json()) as Json;
  assert.equal(res.status, 403, JSON.stringify(body));
  assert.equal(body['error']['code'], 'access_denied');
  const id = String(body['error']['approval_id']);
  assert.match(id, /^apr_/, JSON.stringify(body));
  assert.deepEqual(body['error']['_meta']['io.modelcontextprotocol/authorization']['remediationHints'][0], { type: 'task', taskId: id });
  const callHash = String(body['error']['call_hash']);
  assert.equal((await decide(id, 'approve', { call_hash: callHash })).status, 200);
  assert.equal((await status(editorKey, id)).body['result'].content[0].text, 'saved rest');
  assert.equal(writes(), before + 1);
});

test('arguments over 16 KiB are not held; an answer over 256 KB goes whole to the poll that ran it, later polls read a note saying so', async () => {
  const big = 'n'.repeat(300_000);
  // Arguments this large are never held (APPROVAL_TIMING.argumentBytes): the note is written while
  // write_note waits for no approval, then the rule is put back.
  const rule = async (approval: string) =>
    assert.equal(
      (await api(owner.key, 'PATCH', `/api/v1/projects/${owner.slug}/upstreams/notes/tools/write_note`, { approval })).status,
      200,
    );
  const refused = await call(editorKey, 'notes__write_note', { title: 'big', text: big });
  assert.equal(refused.body['error']?.code, -32602, JSON.stringify(refused.body).slice(0, 300));
  assert.match(String(refused.body['error']?.message), /more than the 16384 bytes an admin is shown/);
  await rule('none');
  await waitFor(
    async () => (await call(editorKey, 'notes__write_note', { title: 'big', text: big })).body['result'] !== undefined,
    'write_note to run',
  );
  await rule('all');
  await waitFor(
    async () => (await call(editorKey, 'notes__write_note', { title: 'x', text: 'x' })).body['error']?.data?.gate === 'approval',
    'write_note held again',
  );
  const gated = await api(owner.key, 'PATCH', `/api/v1/projects/${owner.slug}/upstreams/notes/tools/read_notes`, { approval: 'all' });
  assert.equal(gated.status, 200, JSON.stringify(gated.body));
  // The gateway's copy of the project's tools follows the change when its invalidation arrives.
  let read: Json = {};
  await waitFor(
    async () => (read = (await call(editorKey, 'notes__read_notes', {})).body)['error']?.data?.gate === 'approval',
    'read_notes to be held',
  );
  const id = String(read['error'].data.approval_id);
  assert.equal((await decide(id, 'approve', { call_hash: String(read['error'].data.call_hash) })).status, 200);
  const ran = await status(editorKey, id);
  assert.ok(String(ran.body['result'].content[0].text).includes(big), 'the poll that ran it has the whole answer');
  const later = await status(editorKey, id);
  assert.match(String(later.body['result'].content[0].text), /more than the 262144 kept/);
});

/** A 2026-07-28 request that declares MCP Tasks (SEP-2663), with the headers that revision asks for. */
async function modern(key: string, method: string, params: Record<string, unknown>, name?: string) {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
  };
  const res = await fetch(`${stack.baseUrl}/mcp/${owner.slug}`, {
    method: 'POST',
    headers: {
      'x-api-key': key,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name === undefined ? {} : { 'mcp-name': name }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: rpcId++, method, params: { ...params, _meta: meta } }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

test('a client that declares MCP Tasks gets the held call as a task, followed with tasks/get to its result', async () => {
  const before = writes();
  const created = await modern(
    editorKey,
    'tools/call',
    { name: 'notes__write_note', arguments: { title: 'task', text: 'as a task' } },
    'notes__write_note',
  );
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const task = created.body['result'];
  assert.equal(task.resultType, 'task', JSON.stringify(created.body));
  assert.equal(task.status, 'working');
  assert.match(task.taskId, /^apr_/);
  assert.equal(typeof task.ttlMs, 'number');
  assert.equal(typeof task.pollIntervalMs, 'number');
  const get = () => modern(editorKey, 'tasks/get', { taskId: task.taskId }, task.taskId);
  const working = await get();
  assert.equal(working.body['result'].status, 'working', JSON.stringify(working.body));
  assert.equal(working.body['result'].resultType, 'complete');
  const stranger = await modern(otherKey, 'tasks/get', { taskId: task.taskId }, task.taskId);
  assert.ok(stranger.body['error'], 'another caller is told of no such task');

  const row = (await api(owner.key, 'GET', `/api/v1/projects/${owner.slug}/approvals`)).body['approvals'].find(
    (a: Json) => a['id'] === task.taskId,
  );
  assert.equal((await decide(task.taskId, 'approve', { call_hash: row['call_hash'] })).status, 200);
  const completed = await get();
  assert.equal(completed.body['result']?.status, 'completed', JSON.stringify(completed.body));
  assert.equal(completed.body['result'].result.content[0].text, 'saved task');
  assert.equal(writes(), before + 1);
  assert.equal((await get()).body['result'].result.content[0].text, 'saved task');
  assert.equal(writes(), before + 1, 'the call ran once');

  const refused = (
    await modern(editorKey, 'tools/call', { name: 'notes__write_note', arguments: { title: 'no', text: 'no' } }, 'notes__write_note')
  ).body['result'];
  assert.equal((await decide(refused.taskId, 'deny')).status, 200);
  const failed = (await modern(editorKey, 'tasks/get', { taskId: refused.taskId }, refused.taskId)).body['result'];
  assert.equal(failed.status, 'failed');
  assert.equal(failed.error.code, -31010);
  assert.equal(failed.error.data.status, 'denied');
  assert.equal(writes(), before + 1);

  // tasks/cancel: the caller withdraws a call that has not run; it never runs, and no admin can approve it.
  const withdrawn = (
    await modern(editorKey, 'tools/call', { name: 'notes__write_note', arguments: { title: 'w', text: 'w' } }, 'notes__write_note')
  ).body['result'];
  const strangerCancel = await modern(otherKey, 'tasks/cancel', { taskId: withdrawn.taskId }, withdrawn.taskId);
  assert.ok(strangerCancel.body['error'], 'another caller cannot cancel it');
  const ack = await modern(editorKey, 'tasks/cancel', { taskId: withdrawn.taskId }, withdrawn.taskId);
  assert.equal(ack.status, 200, JSON.stringify(ack.body));
  assert.equal(ack.body['result'].resultType, 'complete');
  assert.equal((await modern(editorKey, 'tasks/get', { taskId: withdrawn.taskId }, withdrawn.taskId)).body['result'].status, 'cancelled');
  const hash = (await api(owner.key, 'GET', `/api/v1/projects/${owner.slug}/approvals`)).body['approvals'].find(
    (a: Json) => a['id'] === withdrawn.taskId,
  )['call_hash'];
  assert.equal((await decide(withdrawn.taskId, 'approve', { call_hash: hash })).status, 409);
  assert.equal(writes(), before + 1);
});

test("a project's admins make one of svc's own tools wait, every gateway follows, and the way-finding tools cannot wait", async () => {
  const path = `/api/v1/projects/${owner.slug}/builtin-tools`;
  const listed = await api(owner.key, 'GET', path);
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  const projectTools = TOOL_POLICIES.filter((p) => p.endpoints.includes('project'));
  assert.deepEqual(
    listed.body['tools'].map((t: Json) => [t['name'], t['approval'], t['approval_settable']]),
    projectTools.map((p) => [p.name, 'none', p.level !== 'NONE']),
  );
  const searching = () => call(editorKey, 'svc_search', { query: 'plan' });
  const ranAtOnce = (res: { body: Json }) => res.body['result'] !== undefined && res.body['result'].isError !== true;
  assert.ok(ranAtOnce(await searching()), 'runs at once before the rule');

  const set = await api(owner.key, 'PATCH', `${path}/svc_search`, { approval: 'below:ADMIN' });
  assert.equal(set.status, 200, JSON.stringify(set.body));
  assert.deepEqual([set.body['approval'], set.body['set_by']], ['below:ADMIN', owner.user.email]);
  // The change reaches each gateway's copy of the project's tools over the invalidation channel.
  const heldCall = await waitFor(async () => {
    const res = await searching();
    return res.body['error']?.data?.gate === 'approval' ? res.body['error'] : null;
  }, 'the editor held by the new rule');
  assert.equal(heldCall.data.status, 'pending');
  const byAdmin = await call(owner.key, 'svc_search', { query: 'plan' });
  assert.ok(ranAtOnce(byAdmin), 'an admin is not below ADMIN: runs at once');
  const approved = await decide(String(heldCall.data.approval_id), 'approve', { call_hash: heldCall.data.call_hash });
  assert.equal(approved.status, 200, JSON.stringify(approved.body));
  const ran = await status(editorKey, String(heldCall.data.approval_id));
  assert.equal(ran.body['result']?.structuredContent?.status, 'done', JSON.stringify(ran.body));

  assert.equal((await api(owner.key, 'PATCH', `${path}/svc_search`, { approval: 'none' })).status, 200);
  await waitFor(async () => ranAtOnce(await searching()), 'runs at once again');
  assert.equal((await api(owner.key, 'GET', path)).body['tools'].find((t: Json) => t['name'] === 'svc_search')['set_by'], null);

  for (const p of projectTools.filter((p) => p.level === 'NONE')) {
    const refused = await api(owner.key, 'PATCH', `${path}/${p.name}`, { approval: 'all' });
    assert.equal(refused.status, 400, `${p.name}: ${JSON.stringify(refused.body)}`);
  }
  assert.equal((await api(owner.key, 'PATCH', `${path}/svc_nothing`, { approval: 'all' })).status, 404);
  assert.equal((await api(owner.key, 'PATCH', `${path}/svc_search`, { approval: 'sometimes' })).status, 400);
  assert.equal((await api(editorKey, 'PATCH', `${path}/svc_search`, { approval: 'all' })).status, 403, 'an editor key is not an admin');
});

test('every step of an approval is in the audit log', async () => {
  const log = await api(owner.key, 'GET', `/api/v1/workspaces/${owner.user.workspace}/audit?limit=200`);
  assert.equal(log.status, 200, JSON.stringify(log.body));
  const actions = new Set((log.body['entries'] as Json[]).map((e) => e['action']));
  for (const action of [
    'approval.requested',
    'approval.approved',
    'approval.ran',
    'approval.denied',
    'approval.expired',
    'approval.cancelled',
    'tool.approval_changed',
  ])
    assert.ok(actions.has(action), `${action} is recorded`);
});
