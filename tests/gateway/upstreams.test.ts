/**
 * svc in front of an MCP server of one's own (docs/upstream-servers.md), end to end against real
 * upstreams built with both official SDKs: registered over REST, their tools listed beside the
 * built-in ones under `<upstream>__<tool>` at the level their annotations give, called through the
 * gateway with a key, each call carrying a token svc signed for that upstream alone, which the
 * upstream verifies with @svc/upstream-auth; and the levels, the policy rows and the flags an
 * upstream's changes raise.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { histogramSeries, parseExposition } from '@svc/testkit';
import { newPerson, startStack, type Stack } from '../support/stack.ts';
import { startSdkV1Upstream, startSdkV2Upstream, type TestUpstream } from '../support/upstream-servers.ts';

/** A JSON answer as the tests read it: any member may be looked into. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked member by member below
type Json = Record<string, any>;

let stack: Stack;
const upstreams: TestUpstream[] = [];

before(async () => {
  stack = await startStack({ UPSTREAM_ALLOWED_PRIVATE: '127.0.0.1/32' });
});
after(async () => {
  for (const u of upstreams) await u.close();
  await stack.close();
});

async function owner(prefix: string) {
  const person = await newPerson(stack, prefix);
  const key = (await stack.accounts.keys.createUserKey({ userId: person.user.id })).key;
  return { ...person, key };
}

async function api(key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${stack.baseUrl}${path}`, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

let rpcId = 1;
async function mcp(key: string, project: string, method: string, params: Record<string, unknown> = {}) {
  const res = await fetch(`${stack.baseUrl}/mcp/${project}`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: rpcId++, method, params }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

const names = (list: { body: Json }) => (list.body['result']?.tools ?? []).map((t: { name: string }) => t.name) as string[];

for (const kind of ['sdk-v1 stateless json', 'sdk-v1 sessions sse', 'sdk-v2'] as const) {
  test(`an upstream (${kind}) registered over REST: its tools listed and called through svc, with a token only that upstream accepts`, async () => {
    const o = await owner('up');
    const verify = { issuer: stack.baseUrl };
    const server =
      kind === 'sdk-v2'
        ? await startSdkV2Upstream({ verify })
        : await startSdkV1Upstream({ sessions: kind === 'sdk-v1 sessions sse', json: kind === 'sdk-v1 stateless json', verify });
    upstreams.push(server);

    const added = await api(o.key, 'POST', `/api/v1/projects/${o.slug}/upstreams`, { name: 'notes', url: server.url });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    const levels = Object.fromEntries(added.body['tools'].map((t: { name: string; level: string }) => [t.name, t.level]));
    // readOnlyHint -> VIEWER; no hints (destructive by MCP's defaults) and destructiveHint -> ADMIN.
    assert.deepEqual(levels, { count_with_progress: 'ADMIN', delete_note: 'ADMIN', read_notes: 'VIEWER', write_note: 'ADMIN' });

    // The owner (ADMIN) sees every tool beside the built-in ones.
    const list = await mcp(o.key, o.slug, 'tools/list');
    assert.ok(names(list).includes('notes__delete_note') && names(list).includes('svc_help'), JSON.stringify(names(list)));

    const exchangesBefore = server.calls.length;
    const observedBefore = await upstreamExchanges();
    const written = await mcp(o.key, o.slug, 'tools/call', { name: 'notes__write_note', arguments: { title: 'a', text: 'hello' } });
    assert.equal(written.body['result']?.content?.[0]?.text, 'saved a', JSON.stringify(written.body));
    const read = await mcp(o.key, o.slug, 'tools/call', { name: 'notes__read_notes', arguments: {} });
    assert.deepEqual(read.body['result']?.structuredContent, { notes: { a: 'hello' } });
    // Each exchange with the upstream is one observation of the outbound histogram (docs/operations.md "Latency histograms").
    assert.equal((await upstreamExchanges()) - observedBefore, server.calls.length - exchangesBefore);

    // The upstream saw svc's token, never the key, and verified it: subject, level, project, tool.
    const calls = server.calls.filter((c) => c.rpcMethod === 'tools/call');
    assert.equal(calls.length, 2);
    for (const c of calls) {
      assert.ok(!JSON.stringify(c.headers).includes(o.key), 'the caller key never reaches the upstream');
      assert.equal(c.authInfo?.extra?.['subject'], `user:${o.user.id}`);
      assert.equal(c.authInfo?.extra?.['level'], 'ADMIN');
      assert.equal(c.authInfo?.extra?.['project'], o.slug);
    }
    assert.deepEqual(
      calls.map((c) => c.authInfo?.extra?.['tool']),
      ['write_note', 'read_notes'],
    );

    // Arguments are checked against the upstream's schema before anything is forwarded.
    const before = server.calls.length;
    const bad = await mcp(o.key, o.slug, 'tools/call', { name: 'notes__write_note', arguments: { title: 1 } });
    assert.equal(bad.body['result']?.isError, true, JSON.stringify(bad.body));
    assert.equal(server.calls.length, before);
  });
}

test('a VIEWER key sees and calls only the read-only tools; an admin lowers a tool and it opens', async () => {
  const o = await owner('lv');
  const server = await startSdkV1Upstream({ json: true, verify: { issuer: stack.baseUrl } });
  upstreams.push(server);
  assert.equal((await api(o.key, 'POST', `/api/v1/projects/${o.slug}/upstreams`, { name: 'notes', url: server.url })).status, 201);
  const viewer = await api(o.key, 'POST', `/api/v1/projects/${o.slug}/keys`, { name: 'reader', level: 'VIEWER' });
  assert.equal(viewer.status, 201, JSON.stringify(viewer.body));
  const vkey = viewer.body['key'] as string;

  const listed = names(await mcp(vkey, o.slug, 'tools/list')).filter((n) => n.startsWith('notes__'));
  assert.deepEqual(listed, ['notes__read_notes']);
  const refused = await mcp(vkey, o.slug, 'tools/call', { name: 'notes__delete_note', arguments: { title: 'a' } });
  assert.equal(refused.status, 403, JSON.stringify(refused.body));
  assert.equal(server.calls.filter((c) => c.rpcMethod === 'tools/call').length, 0, 'a refused call is never forwarded');
  const read = await mcp(vkey, o.slug, 'tools/call', { name: 'notes__read_notes', arguments: {} });
  assert.equal(read.body['result']?.isError, undefined, JSON.stringify(read.body));
  const [call] = server.calls.filter((c) => c.rpcMethod === 'tools/call');
  assert.equal(call?.authInfo?.extra?.['level'], 'VIEWER', 'the token carries the level svc let the caller act at');
  assert.deepEqual(call?.authInfo?.scopes, ['svc:viewer']);

  const lowered = await api(o.key, 'PATCH', `/api/v1/projects/${o.slug}/upstreams/notes/tools/write_note`, { level: 'VIEWER' });
  assert.equal(lowered.status, 200, JSON.stringify(lowered.body));
  assert.ok(names(await mcp(vkey, o.slug, 'tools/list')).includes('notes__write_note'));
  const off = await api(o.key, 'PATCH', `/api/v1/projects/${o.slug}/upstreams/notes/tools/read_notes`, { enabled: false });
  assert.equal(off.status, 200);
  assert.ok(!names(await mcp(vkey, o.slug, 'tools/list')).includes('notes__read_notes'));
});

test('a tool that appears later starts off, a changed one keeps its old row until accepted, and both are flagged', async () => {
  const o = await owner('ch');
  const server = await startSdkV1Upstream({ json: true });
  upstreams.push(server);
  const base = `/api/v1/projects/${o.slug}/upstreams`;
  assert.equal((await api(o.key, 'POST', base, { name: 'notes', url: server.url })).status, 201);
  const { noteTools } = await import('../support/upstream-servers.ts');
  const tools = noteTools();
  tools[0] = { ...tools[0]!, description: 'Lists the notes, and now deletes them too', annotations: { readOnlyHint: true } };
  tools.push({
    name: 'export_all',
    description: 'Exports everything',
    inputSchema: { type: 'object' },
    annotations: { readOnlyHint: true },
  });
  server.setTools(tools);

  const refreshed = await api(o.key, 'POST', `${base}/notes/refresh`);
  assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
  const row = (name: string) => refreshed.body['tools'].find((t: { name: string }) => t.name === name);
  assert.equal(row('export_all').state, 'new');
  assert.equal(row('export_all').enabled, false);
  assert.equal(row('read_notes').state, 'changed');
  assert.equal(row('read_notes').descriptor.description, 'Lists the notes');
  assert.equal(row('read_notes').pending.description, 'Lists the notes, and now deletes them too');

  const listed = (await mcp(o.key, o.slug, 'tools/list')).body['result'].tools as { name: string; description: string }[];
  assert.ok(!listed.some((t) => t.name === 'notes__export_all'), 'a new tool is off until an admin turns it on');
  assert.equal(listed.find((t) => t.name === 'notes__read_notes')?.description, 'Lists the notes');

  const accepted = await api(o.key, 'PATCH', `${base}/notes/tools/read_notes`, { accept_change: true });
  assert.equal(accepted.body['tools'].find((t: { name: string }) => t.name === 'read_notes').state, 'listed');
  const audit = await api(o.key, 'GET', `/api/v1/workspaces/${o.user.workspace}/audit`);
  const actions = (audit.body['entries'] ?? []).map((e: { action: string }) => e.action);
  for (const a of ['upstream.added', 'upstream.refreshed', 'upstream.tool_changed']) assert.ok(actions.includes(a), `${a} in ${actions}`);
});

test("a static credential goes with every request to the upstream, svc's token beside it; a changed one is sent from the change on", async () => {
  const o = await owner('cr');
  const server = await startSdkV1Upstream({ json: true, verify: { issuer: stack.baseUrl } });
  upstreams.push(server);
  const base = `/api/v1/projects/${o.slug}/upstreams`;
  const added = await api(o.key, 'POST', base, {
    name: 'notes',
    url: server.url,
    credential: { header: 'X-Api-Key', value: 'first-secret' },
  });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  for (let i = 0; i < 2; i++) await mcp(o.key, o.slug, 'tools/call', { name: 'notes__read_notes', arguments: {} });
  // The handshake, the tools read and both calls: each with the credential, and svc's token verified.
  assert.ok(server.calls.length >= 4);
  for (const c of server.calls) {
    assert.equal(c.headers['x-api-key'], 'first-secret', `${c.rpcMethod}`);
    assert.ok(c.authInfo, `${c.rpcMethod}: svc's token verified (${c.refusal ?? ''})`);
  }

  const changed = await api(o.key, 'PATCH', `${base}/notes`, { credential: { header: 'X-Api-Key', value: 'second-secret' } });
  assert.equal(changed.status, 200, JSON.stringify(changed.body));
  const from = server.calls.length;
  const called = await mcp(o.key, o.slug, 'tools/call', { name: 'notes__read_notes', arguments: {} });
  assert.ok(called.body['result'], JSON.stringify(called.body));
  const call = server.calls.slice(from).find((c) => c.rpcMethod === 'tools/call');
  assert.equal(call?.headers['x-api-key'], 'second-secret', 'the new credential from the change on');

  // A credential in Authorization: svc's token moves to Svc-Forwarded-Token.
  const plain = await startSdkV1Upstream({ json: true });
  upstreams.push(plain);
  const basic = { header: 'Authorization', value: 'Basic c2VjcmV0' };
  assert.equal((await api(o.key, 'POST', base, { name: 'plain', url: plain.url, credential: basic })).status, 201);
  assert.ok((await mcp(o.key, o.slug, 'tools/call', { name: 'plain__read_notes', arguments: {} })).body['result']);
  const basicCall = plain.calls.find((c) => c.rpcMethod === 'tools/call');
  assert.equal(basicCall?.authorization, 'Basic c2VjcmV0');
  assert.match(String(basicCall?.headers['svc-forwarded-token']), /^Bearer ey/);
});

/** How many exchanges with upstreams the gateway has observed, every outcome together. */
async function upstreamExchanges(): Promise<number> {
  const families = parseExposition(await (await fetch(`${stack.baseUrl}/metrics`)).text());
  if (!families.has('svc_outbound_duration_seconds')) return 0;
  return histogramSeries(families, 'svc_outbound_duration_seconds')
    .filter((s) => s.labels['kind'] === 'upstream')
    .reduce((n, s) => n + s.count, 0);
}
