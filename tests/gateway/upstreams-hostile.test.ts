/**
 * svc in front of an MCP server that misbehaves (docs/upstream-servers.md): real hostile upstreams
 * registered over REST (they answer initialize and tools/list, then hang, fail, answer garbage or
 * flood on tools/call). A forwarded call to one is a JSON-RPC error `upstream_failed` naming why,
 * in an HTTP 200 (docs/conventions.md "Errors": a method's error travels in the body), never a 500
 * and never past the upstream's timeout, while the gateway goes on answering; the breaker then
 * stops calling an upstream that keeps failing; one workspace's hanging upstream holds only its
 * own share of the tools lane; an upstream's notifications/tools/list_changed makes svc read its
 * tools again; and registration refuses what it must.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { OUTBOUND_BOUNDS } from '@svc/bounds/outbound-bounds.ts';
import { BUCKETS } from '@svc/limits';
import { waitFor } from '@svc/testkit';
import { newPerson, startStack, type Stack } from '../support/stack.ts';
// @svc/upstreams is not a dependency of the tests' package: its bounds are read from their one file.
import { UPSTREAM_LIMITS } from '@svc/upstreams/limits.ts';
import {
  noteTools,
  startFailingUpstream,
  startFloodingUpstream,
  startGarbageUpstream,
  startHangingUpstream,
  startSdkV1Upstream,
} from '../support/upstream-servers.ts';

let stack: Stack;
const upstreams: { close(): Promise<void> }[] = [];

before(async () => {
  // The isolation test sends more calls in a minute than a plan's rate allows: the limits are scaled up.
  stack = await startStack({ UPSTREAM_ALLOWED_PRIVATE: '127.0.0.1/32', RATE_LIMIT_SCALE: '1000' });
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

/** A parsed JSON answer, read loosely: each assertion names what it expects of it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type JsonBody = Record<string, any>;

async function api(key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${stack.baseUrl}${path}`, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as JsonBody };
}

let rpcId = 1;
async function mcp(key: string, project: string, method: string, params: Record<string, unknown> = {}) {
  const res = await fetch(`${stack.baseUrl}/mcp/${project}`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: rpcId++, method, params }),
  });
  return { status: res.status, text: await res.text() };
}

const parsed = (answer: { text: string }) => JSON.parse(answer.text) as JsonBody;
const toolCalls = (u: { calls: readonly { rpcMethod: string | undefined }[] }) =>
  u.calls.filter((c) => c.rpcMethod === 'tools/call').length;
const readNotes = { name: 'notes__read_notes', arguments: {} };

/** Registers `url` as `name` in `o`'s project; the answer must be 201. */
async function register(o: Awaited<ReturnType<typeof owner>>, name: string, url: string, extra: Record<string, unknown> = {}) {
  const added = await api(o.key, 'POST', `/api/v1/projects/${o.slug}/upstreams`, { name, url, ...extra });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  return added;
}

/** An upstream_failed error in an HTTP 200, for upstream `name`, with one of `reasons`; never the upstream's address. */
function assertUpstreamFailed(answer: { status: number; text: string }, name: string, reasons: readonly string[], address: string) {
  assert.equal(answer.status, 200, answer.text);
  const error = parsed(answer)['error'];
  assert.equal(error?.data?.code, 'upstream_failed', answer.text);
  assert.equal(error.data.upstream, name);
  assert.ok(reasons.includes(error.data.reason), `reason ${error.data.reason}, expected one of ${reasons.join(', ')}`);
  assert.ok(!answer.text.includes(address), 'the answer never holds the upstream address');
  return error as { code: number; message: string; data: { reason: string } };
}

const hostOf = (url: string) => new URL(url).host;

const HOSTILE = [
  // The hanging one is bounded by the timeout it was registered with, whatever svc's default.
  { kind: 'hanging', start: () => startHangingUpstream(), timeoutMs: 1_000, reasons: ['timeout'] },
  { kind: 'failing with 500', start: () => startFailingUpstream(), timeoutMs: 5_000, reasons: ['status'] },
  { kind: 'answering garbage', start: () => startGarbageUpstream(), timeoutMs: 5_000, reasons: ['invalid'] },
  // More notifications than svc reads before an answer, the stream then ended.
  { kind: 'flooding notifications', start: () => startEndedFloodUpstream(), timeoutMs: 5_000, reasons: ['flood'] },
  // Fewer events than svc reads, but larger in all than it reads of an answer, the stream kept open.
  {
    kind: 'flooding past the size bound',
    start: () => startFloodingUpstream({ events: UPSTREAM_LIMITS.streamEvents - 1, padding: 8 * 1024 }),
    timeoutMs: 5_000,
    reasons: ['too_large'],
  },
] as const;

for (const h of HOSTILE) {
  test(`an upstream ${h.kind}: a call through svc is upstream_failed (${h.reasons.join('/')}) in an HTTP 200, and the gateway answers meanwhile`, async () => {
    const o = await owner('hx');
    const server = await h.start();
    upstreams.push(server);
    await register(o, 'notes', server.url, { timeout_ms: h.timeoutMs });

    const settled: string[] = [];
    const hostile = mcp(o.key, o.slug, 'tools/call', readNotes).finally(() => settled.push('hostile'));
    await waitFor(() => toolCalls(server) === 1, 'the hostile upstream to receive the call');
    // While the forwarded call is out, the gateway still serves this project and its built-in tools.
    const other = await mcp(o.key, o.slug, 'tools/call', { name: 'svc_help', arguments: {} });
    settled.push('other');
    assert.equal(other.status, 200);
    assert.match(parsed(other)['result']?.content?.[0]?.text ?? '', /Tools you can call/);
    // A hanging upstream holds its call for its whole timeout: the other request ended first.
    if (h.kind === 'hanging') assert.deepEqual(settled, ['other']);

    const error = assertUpstreamFailed(await hostile, 'notes', h.reasons, hostOf(server.url));
    assert.equal(error.code, -31060);
    if (h.kind === 'hanging') assert.match(error.message, /within 1000 ms/);
    assert.equal(toolCalls(server), 1, 'a failed call is not sent again');
  });
}

test('an upstream flooding notifications on a stream it keeps open, under the size bound: refused as a flood once past the events svc reads, not at its timeout', async () => {
  const o = await owner('fo');
  // Ten times the events svc reads, far under its size bound; the stream is never ended.
  const server = await startFloodingUpstream({ events: UPSTREAM_LIMITS.streamEvents * 10 });
  upstreams.push(server);
  await register(o, 'notes', server.url, { timeout_ms: UPSTREAM_LIMITS.timeoutMs.max });
  // `flood`, not `timeout`: the events are judged as they come, not once the stream ends.
  const error = assertUpstreamFailed(await mcp(o.key, o.slug, 'tools/call', readNotes), 'notes', ['flood'], hostOf(server.url));
  assert.match(error.message, new RegExp(`more than ${UPSTREAM_LIMITS.streamEvents} events`));
  // svc closed the stream: the upstream stopped before sending all its events.
  await waitFor(() => server.cutShort() === 1, 'the upstream to see its stream closed early');
});

test(`the breaker: after ${UPSTREAM_LIMITS.breaker.failures} failures in a row, calls are refused at once without reaching the upstream`, async () => {
  const o = await owner('br');
  const failing = await startFailingUpstream();
  const healthy = await startSdkV1Upstream({ json: true });
  upstreams.push(failing, healthy);
  await register(o, 'notes', failing.url);
  await register(o, 'other', healthy.url);

  for (let i = 0; i < UPSTREAM_LIMITS.breaker.failures; i++)
    assertUpstreamFailed(await mcp(o.key, o.slug, 'tools/call', readNotes), 'notes', ['status'], hostOf(failing.url));
  assert.equal(toolCalls(failing), UPSTREAM_LIMITS.breaker.failures);

  for (let i = 0; i < 3; i++) {
    const refused = assertUpstreamFailed(await mcp(o.key, o.slug, 'tools/call', readNotes), 'notes', ['breaker'], hostOf(failing.url));
    assert.match(refused.message, /^notes: /);
  }
  assert.equal(toolCalls(failing), UPSTREAM_LIMITS.breaker.failures, 'an open breaker calls nothing');

  // The breaker is the failing upstream's alone: another upstream of the project is still called.
  const fine = await mcp(o.key, o.slug, 'tools/call', { name: 'other__read_notes', arguments: {} });
  assert.deepEqual(parsed(fine)['result']?.structuredContent, { notes: {} }, fine.text);
});

test("the breaker counts the upstream's health only: its own JSON-RPC errors do not open it", async () => {
  const o = await owner('rp');
  const server = await startSdkV1Upstream({ json: true });
  upstreams.push(server);
  await register(o, 'notes', server.url);
  // The tool is gone at the upstream, which answers each call with a JSON-RPC error (-32602).
  server.setTools(noteTools().filter((t) => t.name !== 'read_notes'));
  const calls = UPSTREAM_LIMITS.breaker.failures + 2;
  for (let i = 0; i < calls; i++) {
    const answer = await mcp(o.key, o.slug, 'tools/call', readNotes);
    const body = parsed(answer);
    // The SDK answers an unknown tool as a JSON-RPC error or as an isError result; neither is svc's failure.
    if (body['error']) {
      const error = assertUpstreamFailed(answer, 'notes', ['rpc'], hostOf(server.url));
      assert.equal((error.data as { upstreamCode?: number }).upstreamCode, -32602, "the upstream's own code beside svc's");
    } else assert.equal(body['result']?.isError, true, answer.text);
  }
  assert.equal(toolCalls(server), calls, 'every call reached the upstream');
});

test(
  "one workspace's hanging upstream holds only its share of the tools lane: another workspace's calls succeed, " +
    'and its own calls past the share are refused as busy',
  async () => {
    const a = await owner('ta');
    const b = await owner('tb');
    const hanging = await startHangingUpstream();
    const healthy = await startSdkV1Upstream({ json: true });
    upstreams.push(hanging, healthy);
    // Long enough that A's calls are still held while B calls; they end when the upstream closes.
    await register(a, 'notes', hanging.url, { timeout_ms: UPSTREAM_LIMITS.timeoutMs.max });
    await register(b, 'notes', healthy.url);

    const share = OUTBOUND_BOUNDS.toolConnections;
    const excess = 10;
    const total = share.perTenant + share.waitingPerTenant + excess;
    // Spread over keys of A's person, each within its own cap of calls in flight (BUCKETS.toolCallsInFlight):
    // the share under test is the workspace's, not one credential's.
    const perKey = BUCKETS.toolCallsInFlight.concurrent;
    const aKeys = [a.key];
    while (aKeys.length * perKey < total) aKeys.push((await stack.accounts.keys.createUserKey({ userId: a.user.id })).key);
    let aSettled = 0;
    const aCalls = Array.from({ length: total }, (_, i) =>
      mcp(aKeys[i % aKeys.length]!, a.slug, 'tools/call', readNotes).finally(() => {
        aSettled += 1;
      }),
    );
    // A holds its share: as many calls at the upstream as its places, the rest waiting or refused.
    await waitFor(() => toolCalls(hanging) === share.perTenant && aSettled === excess, {
      message: `A's ${share.perTenant} places held and ${excess} calls refused`,
      timeout: 30_000,
    });

    // One key of B: within its own cap of calls in flight.
    const bCalls = perKey;
    const bAnswers = await Promise.all(Array.from({ length: bCalls }, () => mcp(b.key, b.slug, 'tools/call', readNotes)));
    const bSucceeded = bAnswers.filter((r) => r.status === 200 && parsed(r)['result']?.structuredContent !== undefined).length;
    assert.equal(bSucceeded, bCalls, bAnswers.find((r) => !parsed(r)['result'])?.text);
    assert.equal(toolCalls(healthy), bCalls);
    assert.equal(aSettled, excess, "A's held calls were still in flight while B's succeeded");
    assert.equal(toolCalls(hanging), share.perTenant, 'A never had more than its share at the upstream');

    // Closing the hanging upstream ends A's held calls; those past its share were refused as busy.
    await hanging.close();
    const aAnswers = await Promise.all(aCalls);
    const reasons = aAnswers.map((r) => parsed(r)['error']?.data?.reason as string | undefined);
    assert.equal(reasons.filter((r) => r === 'busy').length, excess, JSON.stringify(count(reasons)));
    for (const r of aAnswers) assert.equal(r.status, 200, r.text);
  },
);

const count = (values: (string | undefined)[]) =>
  values.reduce<Record<string, number>>((m, v) => ((m[String(v)] = (m[String(v)] ?? 0) + 1), m), {});

/**
 * A plain 2025-11-25 upstream (JSON answers to initialize and tools/list) whose tools/call is
 * answered by `onCall` with the tools it lists (which it may change).
 */
async function startPlainUpstream(onCall: (res: ServerResponse, id: number, tools: ListedTool[]) => void) {
  const tools: ListedTool[] = noteTools().map(({ run: _run, ...t }) => t);
  const calls: { rpcMethod: string | undefined }[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const message = JSON.parse(text || '{}') as { id?: number; method?: string };
      calls.push({ rpcMethod: message.method });
      const reply = (answer: Record<string, unknown>) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...answer }));
      if (message.id === undefined) return void res.writeHead(202).end();
      if (message.method === 'initialize')
        return reply({
          result: {
            protocolVersion: '2025-11-25',
            capabilities: { tools: { listChanged: true } },
            serverInfo: { name: 'plain', version: '1' },
          },
        });
      if (message.method === 'tools/list') return reply({ result: { tools } });
      if (message.method === 'tools/call') return onCall(res, message.id, tools);
      return reply({ error: { code: -32601, message: 'Method not found' } });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    calls,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

type ListedTool = Omit<ReturnType<typeof noteTools>[number], 'run'>;
const sseEvent = (m: unknown) => `event: message\ndata: ${JSON.stringify(m)}\n\n`;

/**
 * An upstream whose tools/call answer is an event stream carrying notifications/tools/list_changed
 * before the result (MCP "Transports": a server may send notifications on a request's stream before
 * its response); the call adds a tool.
 */
function startAnnouncingUpstream() {
  return startPlainUpstream((res, id, tools) => {
    if (!tools.some((t) => t.name === 'export_all'))
      tools.push({
        name: 'export_all',
        description: 'Exports every note',
        inputSchema: { type: 'object', properties: {} },
        annotations: { readOnlyHint: true },
      });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(sseEvent({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }));
    res.end(sseEvent({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'done' }] } }));
  });
}

/** An upstream that answers tools/call with more notifications than svc reads before an answer, then ends the stream. */
function startEndedFloodUpstream() {
  return startPlainUpstream((res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const progress = (n: number) =>
      sseEvent({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'f', progress: n } });
    res.end(Array.from({ length: UPSTREAM_LIMITS.streamEvents + 1 }, (_, n) => progress(n)).join(''));
  });
}

/**
 * An upstream whose tools/call answer is an event stream in every form the SSE grammar allows (HTML
 * "Server-sent events": CRLF, LF and lone CR line ends, comments, `id` and `event` fields, an event
 * without data that only primes a reconnection, data split over two lines), sent a byte at a time.
 */
function startOddlyFramedUpstream() {
  return startPlainUpstream((res, id) => {
    const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'x', progress: 1 } };
    const result = JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'framed' }] } });
    const cut = result.indexOf('"result"');
    const text =
      ': a comment\r\n' +
      'id: 1\r\ndata:\r\n\r\n' +
      `event: message\rdata:${JSON.stringify(progress)}\r\r` +
      `id: 2\ndata: ${result.slice(0, cut)}\r\ndata: ${result.slice(cut)}\r\n\r\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    void (async () => {
      for (const byte of Buffer.from(text)) {
        res.write(Buffer.of(byte));
        await new Promise((resolve) => setImmediate(resolve));
      }
      res.end();
    })();
  });
}

test('an upstream streaming its answer a byte at a time, with every line end, comments, ids and an empty priming event: the answer is read', async () => {
  const o = await owner('fr');
  const server = await startOddlyFramedUpstream();
  upstreams.push(server);
  await register(o, 'notes', server.url);
  const called = await mcp(o.key, o.slug, 'tools/call', readNotes);
  assert.equal(parsed(called)['result']?.content?.[0]?.text, 'framed', called.text);
});

test('an upstream that announces notifications/tools/list_changed in a call\'s answer: svc reads its tools again, the new tool starts off as "new"', async () => {
  const o = await owner('lc');
  const server = await startAnnouncingUpstream();
  upstreams.push(server);
  const added = await register(o, 'notes', server.url);
  assert.ok(!added.body['tools'].some((t: { name: string }) => t.name === 'export_all'));

  const called = await mcp(o.key, o.slug, 'tools/call', readNotes);
  assert.equal(parsed(called)['result']?.content?.[0]?.text, 'done', called.text);

  const row = await waitFor(
    async () => {
      const view = await api(o.key, 'GET', `/api/v1/projects/${o.slug}/upstreams/notes`);
      return view.body['tools'].find((t: { name: string }) => t.name === 'export_all') as Record<string, unknown> | undefined;
    },
    { message: 'the announced tool in the upstream view', timeout: 10_000 },
  );
  assert.equal(row['state'], 'new');
  assert.equal(row['enabled'], false);
  const listed = parsed(await mcp(o.key, o.slug, 'tools/list'))['result'].tools.map((t: { name: string }) => t.name) as string[];
  assert.ok(listed.includes('notes__read_notes') && !listed.includes('notes__export_all'), 'a new tool is off until an admin turns it on');
});

test('registration refuses a URL of a private address outside UPSTREAM_ALLOWED_PRIVATE (400 url), never saying the address', async () => {
  const o = await owner('pa');
  const server = await startSdkV1Upstream({ json: true });
  upstreams.push(server);
  const port = new URL(server.url).port;
  // 127.0.0.2 is loopback outside the allowed 127.0.0.1/32; ::ffff:a00:1 is 10.0.0.1 mapped into IPv6;
  // a name under .localhost resolves to loopback, ::1 included (RFC 6761 §6.3).
  const cases = [
    { url: `http://127.0.0.2:${port}/mcp`, hidden: [] },
    { url: `http://[::ffff:10.0.0.1]:${port}/mcp`, hidden: ['10.0.0.1'] },
    { url: `http://notes.localhost:${port}/mcp`, hidden: ['127.0.0.1', '::1'] },
  ];
  for (const c of cases) {
    const refused = await api(o.key, 'POST', `/api/v1/projects/${o.slug}/upstreams`, { name: 'notes', url: c.url });
    assert.equal(refused.status, 400, `${c.url}: ${JSON.stringify(refused.body)}`);
    assert.equal(refused.body['error']?.field, 'url', JSON.stringify(refused.body));
    for (const address of c.hidden) assert.ok(!JSON.stringify(refused.body).includes(address), `${c.url}: ${JSON.stringify(refused.body)}`);
  }
  assert.equal(server.calls.length, 0, 'nothing was sent to a refused address');
  assert.deepEqual((await api(o.key, 'GET', `/api/v1/projects/${o.slug}/upstreams`)).body['upstreams'], []);
});

test('registration refuses bad names (400 name), an 11th upstream (409) and a reserved credential header (400 credential)', async () => {
  const o = await owner('rf');
  const server = await startSdkV1Upstream({ json: true });
  upstreams.push(server);
  const base = `/api/v1/projects/${o.slug}/upstreams`;
  for (const name of ['svc-x', 'Bad_Name', 'rlm', '-lead', 'a'.repeat(UPSTREAM_LIMITS.nameLength + 1)]) {
    const refused = await api(o.key, 'POST', base, { name, url: server.url });
    assert.equal(refused.status, 400, `${name}: ${JSON.stringify(refused.body)}`);
    assert.equal(refused.body['error']?.field, 'name', `${name}: ${JSON.stringify(refused.body)}`);
  }
  for (const header of ['Host', 'content-length', 'Mcp-Session-Id']) {
    const refused = await api(o.key, 'POST', base, { name: 'notes', url: server.url, credential: { header, value: 'secret-value' } });
    assert.equal(refused.status, 400, `${header}: ${JSON.stringify(refused.body)}`);
    assert.equal(refused.body['error']?.field, 'credential', JSON.stringify(refused.body));
    assert.ok(!JSON.stringify(refused.body).includes('secret-value'), 'the refusal never echoes the credential');
  }
  assert.equal(server.calls.length, 0, 'a refused registration never speaks to the server');

  for (let i = 1; i <= UPSTREAM_LIMITS.perProject; i++) await register(o, `notes${i}`, server.url);
  const full = await api(o.key, 'POST', base, { name: 'one-more', url: server.url });
  assert.equal(full.status, 409, JSON.stringify(full.body));
  const listed = (await api(o.key, 'GET', base)).body['upstreams'] as { name: string }[];
  assert.equal(listed.length, UPSTREAM_LIMITS.perProject);
  assert.ok(!listed.some((u) => u.name === 'one-more'));
});
