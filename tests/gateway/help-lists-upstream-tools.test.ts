/**
 * What a caller is told it can call, against a real upstream MCP server (the official SDK v1)
 * registered on a project (docs/upstream-servers.md): svc_help, over MCP and REST, names exactly
 * the tools tools/list gives that caller, the project's upstream tools under `<upstream>__<tool>`
 * included, and the upstream tools its level keeps out with the way in; `svc tools` lists them
 * too; a person with no role is told none of them. The REST refusals about tools point at those
 * lists, never at the OpenAPI document, which lists only the built-in tools (docs/decisions.md
 * "REST").
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually } from '@svc/testkit';
import { newPerson, startStack, type Stack } from '../support/stack.ts';
import { startSdkV1Upstream, type TestUpstream } from '../support/upstream-servers.ts';
import { BIN, runToEnd, tempDir } from '../cli/support.ts';

/** A JSON answer as the tests read it: any member may be looked into. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked member by member below
type Json = Record<string, any>;

let stack: Stack;
let server: TestUpstream;
let owner: Awaited<ReturnType<typeof newPerson>> & { key: string };
let viewerKey: string;

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

const listedNames = async (key: string, project: string) =>
  ((await mcp(key, project, 'tools/list')).body['result']?.tools ?? []).map((t: { name: string }) => t.name).sort() as string[];

/** svc_help's answer over MCP: its text and its two lists by name. */
async function help(key: string, project: string) {
  const res = await mcp(key, project, 'tools/call', { name: 'svc_help', arguments: {} });
  const result = res.body['result'];
  assert.ok(result?.structuredContent, JSON.stringify(res.body));
  return {
    text: String(result.content[0].text),
    available: (result.structuredContent.available as { name: string }[]).map((t) => t.name),
    unavailable: result.structuredContent.unavailable as { name: string; reason: string; remedy: string }[],
  };
}

const notes = (names: string[]) => names.filter((n) => n.startsWith('notes__')).sort();

before(async () => {
  stack = await startStack({ UPSTREAM_ALLOWED_PRIVATE: '127.0.0.1/32' });
  const person = await newPerson(stack, 'helpup');
  owner = { ...person, key: (await stack.accounts.keys.createUserKey({ userId: person.user.id })).key };
  server = await startSdkV1Upstream({ json: true, verify: { issuer: stack.baseUrl } });
  const added = await api(owner.key, 'POST', `/api/v1/projects/${owner.slug}/upstreams`, { name: 'notes', url: server.url });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  const viewer = await api(owner.key, 'POST', `/api/v1/projects/${owner.slug}/keys`, { name: 'reader', level: 'VIEWER' });
  assert.equal(viewer.status, 201, JSON.stringify(viewer.body));
  viewerKey = viewer.body['key'] as string;
});
after(async () => {
  await server?.close();
  await stack?.close();
});

test('svc_help names exactly the tools tools/list gives each caller, the upstream ones under their listed names', async () => {
  const all = ['notes__count_with_progress', 'notes__delete_note', 'notes__read_notes', 'notes__write_note'];
  const ownerHelp = await help(owner.key, owner.slug);
  assert.deepEqual(notes(ownerHelp.available), all);
  assert.deepEqual([...ownerHelp.available].sort(), await listedNames(owner.key, owner.slug));
  assert.match(ownerHelp.text, /^- notes__read_notes: /m);
  assert.match(ownerHelp.text, /^- svc_help: /m, 'the built-in tools are still there');

  // A VIEWER key: the read-only tool to call, the others with what keeps them out and the way in.
  const viewerHelp = await help(viewerKey, owner.slug);
  assert.deepEqual(notes(viewerHelp.available), ['notes__read_notes']);
  assert.deepEqual([...viewerHelp.available].sort(), await listedNames(viewerKey, owner.slug));
  const deleteNote = viewerHelp.unavailable.find((t) => t.name === 'notes__delete_note');
  assert.deepEqual(deleteNote, {
    name: 'notes__delete_note',
    reason: 'notes__delete_note needs the ADMIN access level; this credential has VIEWER',
    remedy: 'call svc_request_access',
  });
  assert.match(viewerHelp.text, /^- notes__delete_note: notes__delete_note needs the ADMIN access level; .*svc_request_access$/m);

  // The same answer over REST.
  const rest = await api(viewerKey, 'POST', `/api/v1/projects/${owner.slug}/tools/svc_help`, {});
  assert.equal(rest.status, 200, JSON.stringify(rest.body));
  assert.deepEqual(
    (rest.body['structuredContent'].available as { name: string }[]).map((t) => t.name),
    viewerHelp.available,
  );
});

test('a tool an admin turns off, or opens to a lower level, leaves or joins svc_help as it does tools/list', async () => {
  const base = `/api/v1/projects/${owner.slug}/upstreams/notes/tools`;
  assert.equal((await api(owner.key, 'PATCH', `${base}/write_note`, { level: 'VIEWER' })).status, 200);
  assert.equal((await api(owner.key, 'PATCH', `${base}/read_notes`, { enabled: false })).status, 200);
  // Each gateway drops the project's tool set when told the upstreams changed (docs/upstream-servers.md "Bounds").
  await eventually(async () => assert.deepEqual(notes((await help(viewerKey, owner.slug)).available), ['notes__write_note']), {
    message: 'svc_help to list the tools as the admin left them',
  });
  const viewerHelp = await help(viewerKey, owner.slug);
  assert.deepEqual([...viewerHelp.available].sort(), await listedNames(viewerKey, owner.slug));
  assert.ok(!viewerHelp.text.includes('notes__read_notes'), 'a tool turned off is not offered, nor listed as out of reach');
  assert.equal((await api(owner.key, 'PATCH', `${base}/read_notes`, { enabled: true })).status, 200);
  assert.equal((await api(owner.key, 'PATCH', `${base}/write_note`, { level: 'ADMIN' })).status, 200);
  await eventually(async () => assert.deepEqual(notes((await help(viewerKey, owner.slug)).available), ['notes__read_notes']), {
    message: 'svc_help to list the tools as they were',
  });
});

test('a person with no role on the project is told none of its upstream tools', async () => {
  const outsider = await newPerson(stack, 'helpout');
  const key = (await stack.accounts.keys.createUserKey({ userId: outsider.user.id })).key;
  const outsiderHelp = await help(key, owner.slug);
  assert.ok(outsiderHelp.available.includes('svc_request_access'));
  assert.ok(!outsiderHelp.text.includes('notes'), outsiderHelp.text);
  assert.deepEqual(notes(await listedNames(key, owner.slug)), []);
});

test('svc tools lists the upstream tools this key can call', async () => {
  const env = { SVC_API_KEY: viewerKey, SVC_BASE_URL: stack.baseUrl, SVC_CONFIG_DIR: await tempDir('help-upstream') };
  const run = await runToEnd(BIN.svc, ['tools', '--project', owner.slug, '--json'], env);
  assert.equal(run.code, 0, run.stderr);
  const listed = (JSON.parse(run.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
  assert.deepEqual(notes(listed), ['notes__read_notes']);
});

test('REST refusals about tools say how to list the tools and read a schema, never the OpenAPI document', async () => {
  const unknown = await api(viewerKey, 'POST', `/api/v1/projects/${owner.slug}/tools/notes__nope`, {});
  assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
  assert.equal(unknown.body['error'].message, 'Unknown tool: notes__nope');
  assert.equal(
    unknown.body['error'].remedy,
    `The tools you can call: svc tools --project ${owner.slug}, or tools/list on POST /mcp/${owner.slug} (MCP), or svc_help there.`,
  );
  const bad = await api(owner.key, 'POST', `/api/v1/projects/${owner.slug}/tools/notes__write_note`, { title: 1 });
  assert.equal(bad.status, 400, JSON.stringify(bad.body));
  assert.equal(
    bad.body['error'].remedy,
    `Send the arguments as a JSON object that fits the tool's inputSchema: svc tools describe notes__write_note --project ${owner.slug} shows it, as tools/list on POST /mcp/${owner.slug} does.`,
  );
  const path = await api(viewerKey, 'POST', `/api/v1/projects/${owner.slug}/tool/notes__read_notes`, {});
  assert.equal(path.status, 404);
  assert.match(path.body['error'].remedy, /tools\/list there, or svc tools --project <project_slug>/);
  for (const answer of [unknown, bad]) assert.doesNotMatch(answer.body['error'].remedy, /openapi/i);
});
