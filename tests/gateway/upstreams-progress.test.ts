/**
 * A forwarded call's progress reaches its caller (docs/upstream-servers.md "Progress"): real MCP
 * clients (SDK v1 and v2) passing `onprogress` call a tool of a real SDK upstream that reports
 * progress; svc answers the call as an event stream (MCP 2025-11-25 "Transports") relaying each of
 * the upstream's notifications/progress as it comes, with the caller's own token, then the
 * result. A call without a progressToken, or from a caller whose Accept takes no event stream, is
 * answered with JSON as before; a failure after progress began is the stream's last event.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { waitFor } from '@svc/testkit';
import { UPSTREAM_LIMITS } from '@svc/upstreams/limits.ts';
import { newPerson, startStack, type Stack } from '../support/stack.ts';
import { gatedProgressTool, noteTools, startSdkV1Upstream, startSdkV2Upstream, type TestUpstream } from '../support/upstream-servers.ts';

let stack: Stack;
let person: Awaited<ReturnType<typeof newPerson>>;
let key: string;
const upstreams: TestUpstream[] = [];

/** The gate the upstreams' slow_export waits at: opened by the test, a new one for each call. */
let gate = Promise.withResolvers<void>();
/** A gate that never opens: the tool of `hung` reports its first step, then never answers. */
const never = () => new Promise<void>(() => {});

before(async () => {
  stack = await startStack({ UPSTREAM_ALLOWED_PRIVATE: '127.0.0.1/32' });
  // PRO: each connection (initialize, its notification, the calls, the close) is several requests
  // through the one personal key, more in a minute than FREE admits one client (15).
  person = await newPerson(stack, 'prg', { plan: 'PRO' });
  key = (await stack.accounts.keys.createUserKey({ userId: person.user.id })).key;
  const tools = () => [...noteTools(), gatedProgressTool(() => gate.promise)];
  const servers = {
    // SDK v1, stateless, answering as an event stream: the transport a progress needs.
    v1: await startSdkV1Upstream({ tools: tools() }),
    v2: await startSdkV2Upstream({ tools: tools() }),
    hung: await startSdkV1Upstream({ tools: [gatedProgressTool(never)] }),
  };
  for (const [name, server] of Object.entries(servers)) {
    upstreams.push(server);
    const timeout = name === 'hung' ? { timeout_ms: UPSTREAM_LIMITS.timeoutMs.min } : {};
    const added = await fetch(`${stack.baseUrl}/api/v1/projects/${person.slug}/upstreams`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ name, url: server.url, ...timeout }),
    });
    assert.equal(added.status, 201, await added.text());
  }
});
after(async () => {
  for (const u of upstreams) await u.close();
  await stack?.close();
});

interface Update {
  progress: number;
  total?: number;
  message?: string;
}

/** A tool's result as the tests read it. */
interface CallResult {
  content?: unknown;
  isError?: boolean;
}

/** What a test does with a connected client, whichever SDK line it is. */
interface Caller {
  call(name: string, args: Record<string, unknown>, onprogress?: (p: Update) => void): Promise<CallResult>;
  close(): Promise<void>;
}

async function connect(line: 'v1' | 'v2'): Promise<Caller> {
  const url = new URL(`${stack.baseUrl}/mcp/${person.slug}`);
  const requestInit = { headers: { 'x-api-key': key } };
  if (line === 'v1') {
    const client = new ClientV1({ name: 'progress-v1', version: '1.0.0' });
    await client.connect(new TransportV1(url, { requestInit }));
    return {
      // The v1 result type also admits the pre-2024 `toolResult` shape; svc answers the current one.
      call: async (name, args, onprogress) =>
        (await client.callTool({ name, arguments: args }, undefined, onprogress ? { onprogress } : {})) as CallResult,
      close: () => client.close(),
    };
  }
  const client = new ClientV2({ name: 'progress-v2', version: '1.0.0' });
  await client.connect(new TransportV2(url, { requestInit }));
  return {
    call: (name, args, onprogress) => client.callTool({ name, arguments: args }, onprogress ? { onprogress } : {}),
    close: () => client.close(),
  };
}

const textOf = (result: { content?: unknown }) => (result.content as { text?: string }[] | undefined)?.[0]?.text;

for (const client of ['v1', 'v2'] as const)
  for (const upstream of ['v1', 'v2'] as const) {
    test(`SDK ${client} client, SDK ${upstream} upstream: the upstream's progress reaches onprogress while the call runs, then the result`, async () => {
      const caller = await connect(client);
      try {
        gate = Promise.withResolvers<void>();
        const updates: Update[] = [];
        const answer = caller.call(`${upstream}__slow_export`, {}, (p) => updates.push(p));
        // The first step arrives while the upstream still waits at its gate: relayed as it came.
        await waitFor(() => updates.length === 1, 'the first progress before the call ends');
        assert.deepEqual(updates, [{ progress: 1, total: 3, message: 'started' }]);
        gate.resolve();
        const result = await answer;
        assert.equal(textOf(result), 'exported', JSON.stringify(result));
        assert.deepEqual(
          updates.map((u) => [u.progress, u.total, u.message]),
          [
            [1, 3, 'started'],
            [2, 3, 'halfway'],
            [3, 3, 'written'],
          ],
        );
      } finally {
        await caller.close();
      }
    });
  }

test('a count with many steps: every notification relayed in order, each with the caller token, then the result', async () => {
  const caller = await connect('v1');
  try {
    const updates: Update[] = [];
    const result = await caller.call('v1__count_with_progress', { steps: 50 }, (p) => updates.push(p));
    assert.equal(textOf(result), 'counted 50');
    assert.deepEqual(
      updates.map((u) => u.progress),
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
  } finally {
    await caller.close();
  }
});

/** A raw tools/call with `meta` and `accept` (count_with_progress counts 3); its status, content type and body text. */
async function rawCall(name: string, meta: Record<string, unknown> | undefined, accept: string) {
  const args = name.endsWith('count_with_progress') ? { steps: 3 } : {};
  const res = await fetch(`${stack.baseUrl}/mcp/${person.slug}`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json', accept, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
    }),
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** The messages of an event stream's text, in order. */
const eventsOf = (text: string) =>
  text
    .split('\n\n')
    .filter((e) => e.trim() !== '')
    .map((e) => {
      const data = e.split('\n').find((l) => l.startsWith('data: '));
      assert.ok(data, `an event with data: ${e}`);
      return JSON.parse(data.slice('data: '.length)) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    });

test('on the wire: the progress events carry the caller token (not the one svc gave the upstream), the response is the last event', async () => {
  const streamed = await rawCall('v1__count_with_progress', { progressToken: 'caller-token-1' }, 'application/json, text/event-stream');
  assert.equal(streamed.status, 200);
  assert.match(streamed.type, /^text\/event-stream/);
  const events = eventsOf(streamed.text);
  assert.deepEqual(
    events.slice(0, -1).map((e) => [e['method'], e['params']?.progressToken, e['params']?.progress, e['params']?.total]),
    [
      ['notifications/progress', 'caller-token-1', 1, 3],
      ['notifications/progress', 'caller-token-1', 2, 3],
      ['notifications/progress', 'caller-token-1', 3, 3],
    ],
  );
  const last = events.at(-1)!;
  assert.equal(last['id'], 7);
  assert.equal(last['result']?.content?.[0]?.text, 'counted 3');
  // The upstream was given a token of svc's own, never the caller's.
  const forwarded = upstreams[0]!.calls.filter((c) => c.tool === 'count_with_progress').at(-1)?.body as
    { params?: { _meta?: { progressToken?: unknown } } } | undefined;
  assert.equal(typeof forwarded?.params?._meta?.progressToken, 'number', JSON.stringify(forwarded));
});

test('answered with JSON as before: no progressToken, an Accept without event streams, or a tool that reports no progress', async () => {
  const cases = [
    { name: 'v1__count_with_progress', meta: undefined, accept: 'application/json, text/event-stream' },
    { name: 'v1__count_with_progress', meta: { progressToken: 5 }, accept: 'application/json' },
    { name: 'v1__read_notes', meta: { progressToken: 5 }, accept: 'application/json, text/event-stream' },
    { name: 'svc_help', meta: { progressToken: 5 }, accept: 'application/json, text/event-stream' },
  ];
  for (const c of cases) {
    const answer = await rawCall(c.name, c.meta, c.accept);
    assert.equal(answer.status, 200, answer.text);
    assert.match(answer.type, /^application\/json/, `${c.name} ${JSON.stringify(c.meta)} ${c.accept}`);
    const body = JSON.parse(answer.text) as { id: number; result?: { isError?: boolean } };
    assert.equal(body.id, 7);
    assert.ok(body.result && body.result.isError !== true, answer.text);
  }
});

test('a failure after progress began (the upstream past its timeout): the stream ends with the JSON-RPC error upstream_failed', async () => {
  const streamed = await rawCall('hung__slow_export', { progressToken: 'p' }, 'application/json, text/event-stream');
  assert.match(streamed.type, /^text\/event-stream/);
  const events = eventsOf(streamed.text);
  assert.deepEqual(events[0]?.['params'], { progressToken: 'p', progress: 1, total: 3, message: 'started' });
  const last = events.at(-1)!;
  assert.equal(last['id'], 7);
  assert.equal(last['error']?.code, -31060, JSON.stringify(last));
  assert.equal(last['error']?.data?.reason, 'timeout');
  assert.equal(events.length, 2);

  // The SDK client sees the same failure as an error of its call, after the progress it was sent.
  const caller = await connect('v1');
  try {
    const updates: Update[] = [];
    await assert.rejects(
      caller.call('hung__slow_export', {}, (p) => updates.push(p)),
      /within 1000 ms/,
    );
    assert.deepEqual(updates, [{ progress: 1, total: 3, message: 'started' }]);
  } finally {
    await caller.close();
  }
});
