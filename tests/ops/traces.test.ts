/**
 * OpenTelemetry traces (docs/operations.md "Traces"): both services exporting OTLP/HTTP JSON to a
 * receiver in the test. A tools/call continues the caller's trace from the traceparent header or
 * from MCP 2026-07-28's `_meta` (the header wins), with the pipeline's steps, the Redis call and
 * the tool as spans; an OAuth token request is a span with its Redis adapter calls; credentials
 * sent everywhere appear in no exported byte.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { ALLOWED_ATTRIBUTES } from '@svc/telemetry';
import { outsideLoopBudget, waitFor } from '@svc/testkit';
import { newPerson, startStack, type Stack } from '../support/stack.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.ts';

let stack: Stack;
let otlp: OtlpReceiver;
let slug: string;
let key: string;

before(async () => {
  otlp = await startOtlpReceiver();
  // The default sampler (parentbased_traceidratio) at ratio 0: only a caller's sampled trace is kept.
  stack = await outsideLoopBudget(() =>
    startStack({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_TRACES_SAMPLER_ARG: '0' }),
  );
  const person = await newPerson(stack, 'tr');
  slug = person.slug;
  key = (await stack.accounts.keys.createProjectKey({ project: slug, workspace: person.user.workspace, level: 'VIEWER', name: 'k' })).key;
});
after(async () => {
  await stack.close();
  await otlp.close();
});

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** The spans of one trace once `expect` holds of them (exports are batched: flushed, then polled). */
async function traceOf(traceId: string, expect: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
  let spans: ReceivedSpan[] = [];
  await waitFor(
    async () => {
      await stack.flushTraces();
      spans = otlp.spans.filter((s) => s.traceId === traceId);
      return expect(spans);
    },
    { timeout: 10_000, message: `the spans of trace ${traceId}` },
  );
  return spans;
}

const named = (spans: ReceivedSpan[], name: string) => {
  const span = spans.find((s) => s.name === name);
  assert.ok(span, `a span named ${name} among ${spans.map((s) => s.name).join(', ')}`);
  return span;
};

/** The gateway's route span, its steps, the Redis call and the tool, parented as the pipeline runs them. */
function assertPipeline(spans: ReceivedSpan[], callerSpan: string, source: string): void {
  const root = named(spans, 'mcp');
  assert.equal(root.parentSpanId, callerSpan, "the route's span is the caller's span's child");
  assert.equal(root.attributes['svc.trace.parent'], source);
  assert.equal(root.attributes['mcp.method.name'], 'tools/call');
  assert.equal(root.attributes['http.response.status_code'], 200);
  for (const step of ['authenticateStep', 'resolvePolicy', 'prepareToolCall', 'admitStep'])
    assert.equal(named(spans, step).parentSpanId, root.spanId, `${step} is a step of the route`);
  const tool = named(spans, 'tools/call svc_help');
  assert.equal(tool.parentSpanId, root.spanId, 'the tool runs in the route (dispatch is no span of its own)');
  assert.equal(tool.attributes['gen_ai.tool.name'], 'svc_help');
  const redis = named(spans, 'redis admit');
  const admit = named(spans, 'admitStep');
  assert.equal(redis.parentSpanId, admit.spanId, "the batch's Redis call is under its first request's admit step");
  assert.ok(
    redis.links.some((l) => l.spanId === admit.spanId),
    'and links every request it decides',
  );
  assert.ok(Number(redis.attributes['svc.admit.batch_size']) >= 1);
}

async function mcp(body: unknown, headers: Record<string, string>): Promise<Response> {
  return fetch(`${stack.baseUrl}/mcp/${slug}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'X-API-Key': key, ...headers },
    body: JSON.stringify(body),
  });
}

test("a tools/call with a traceparent header: the pipeline, the Redis call and the tool in the caller's trace", async () => {
  const [traceId, parent] = [hex(16), hex(8)];
  const res = await mcp(
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_help', arguments: {} } },
    { traceparent: `00-${traceId}-${parent}-01`, tracestate: 'vendor=1' },
  );
  assert.equal(res.status, 200);
  const spans = await traceOf(traceId, (s) => s.some((x) => x.name === 'mcp') && s.some((x) => x.name === 'redis admit'));
  assertPipeline(spans, parent, 'header');
  assert.ok(spans.every((s) => s.service === 'mcp-gateway'));
});

const V = '2026-07-28';
const modern = (traceparent: string) => ({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: {
    name: 'svc_help',
    arguments: {},
    _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {}, traceparent },
  },
});
const modernHeaders = { 'MCP-Protocol-Version': V, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'svc_help' };

test("MCP 2026-07-28: the trace context in the request's _meta is continued; a traceparent header wins over it", async () => {
  const [traceId, parent] = [hex(16), hex(8)];
  const res = await mcp(modern(`00-${traceId}-${parent}-01`), modernHeaders);
  assert.equal(res.status, 200);
  const spans = await traceOf(traceId, (s) => s.some((x) => x.name === 'mcp') && s.some((x) => x.name === 'redis admit'));
  assertPipeline(spans, parent, 'meta');

  const [headerTrace, headerParent, metaTrace] = [hex(16), hex(8), hex(16)];
  await mcp(modern(`00-${metaTrace}-${hex(8)}-01`), { ...modernHeaders, traceparent: `00-${headerTrace}-${headerParent}-01` });
  const both = await traceOf(headerTrace, (s) => s.some((x) => x.name === 'mcp'));
  assert.equal(named(both, 'mcp').parentSpanId, headerParent);
  assert.equal(named(both, 'mcp').attributes['svc.trace.parent'], 'header');
  assert.equal(otlp.spans.filter((s) => s.traceId === metaTrace).length, 0, "the _meta's trace is not used when the header has one");
});

test("an OAuth token request: the endpoint's span in the caller's trace, its Redis adapter calls beneath", async () => {
  const [traceId, parent] = [hex(16), hex(8)];
  const res = await fetch(`${stack.authUrl}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', traceparent: `00-${traceId}-${parent}-01` },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'svc_rt_notarealone', client_id: 'nobody' }),
  });
  assert.ok(res.status >= 400 && res.status < 500);
  const spans = await traceOf(traceId, (s) => s.some((x) => x.name === 'oauth token'));
  const token = named(spans, 'oauth token');
  assert.equal(token.parentSpanId, parent);
  assert.equal(token.service, 'auth-service');
  assert.equal(token.attributes['http.route'], '/api/oauth/token');
  assert.equal(token.attributes['http.response.status_code'], res.status);
  const adapter = spans.filter((s) => s.attributes['db.system.name'] === 'redis');
  assert.ok(adapter.length > 0, 'the adapter calls are spans');
  assert.ok(adapter.every((s) => s.parentSpanId === token.spanId && typeof s.attributes['svc.oauth.model'] === 'string'));
});

test('credentials sent everywhere (headers, cookies, query, body, _meta, path) appear in no exported byte', async () => {
  const before = otlp.bodies.length;
  const secrets = [key, `svc_at_${hex(20)}`, `svc_rt_${hex(20)}`, `cookie-${hex(12)}`, `code-${hex(12)}`, `secret-${hex(12)}`];
  const [apiKey, token, refresh, cookie, code, secret] = secrets as [string, string, string, string, string, string];
  const traceId = hex(16);
  const headers = {
    traceparent: `00-${traceId}-${hex(8)}-01`,
    tracestate: `svc=${code}`,
    'X-API-Key': apiKey,
    Authorization: `Bearer ${token}`,
    Cookie: `svc_session=${cookie}`,
  };
  const everywhere = { code, refresh_token: refresh, client_secret: secret, password: secret, key: apiKey };
  const requests: [string, RequestInit][] = [
    [
      `${stack.baseUrl}/mcp/${slug}?code=${code}&key=${apiKey}`,
      {
        method: 'POST',
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'svc_search', arguments: { query: secret }, _meta: { traceparent: headers.traceparent, token } },
        }),
      },
    ],
    [`${stack.baseUrl}/mcp/${slug}`, { method: 'POST', headers: { ...headers, 'X-API-Key': 'svc-' + secret }, body: '{' }],
    [
      `${stack.baseUrl}/api/v1/projects/${slug}/tools/svc_help?token=${token}`,
      { method: 'POST', headers, body: JSON.stringify(everywhere) },
    ],
    [`${stack.baseUrl}/api/v1/me?code=${code}`, { headers }],
    [`${stack.baseUrl}/api/v1/workspaces/${secret}/keys`, { headers }],
    [
      `${stack.authUrl}/api/oauth/token`,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', ...everywhere, client_id: secret }),
      },
    ],
    [`${stack.authUrl}/api/oauth/authorize?client_id=${secret}&code_challenge=${code}&state=${refresh}`, { headers, redirect: 'manual' }],
    [
      `${stack.authUrl}/api/oauth/introspect`,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, client_id: secret }),
      },
    ],
    [
      `${stack.authUrl}/api/oauth/device/code`,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: secret, scope: code }),
      },
    ],
    [
      `${stack.authUrl}/api/oauth/register`,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [`http://127.0.0.1/cb?code=${code}`], client_name: secret }),
      },
    ],
    [`${stack.authUrl}/device?user_code=${code}`, { headers }],
  ];
  for (const [url, init] of requests) await (await fetch(url, init)).arrayBuffer();
  // Every request above is in the one trace: wait for its spans of both services.
  await traceOf(traceId, (s) => s.filter((x) => x.service === 'auth-service').length >= 5 && s.filter((x) => x.name === 'mcp').length >= 2);
  const exported = otlp.bodies.slice(before).join('\n');
  assert.ok(exported.includes(traceId));
  for (const s of secrets) assert.ok(!exported.includes(s), `an exported span holds ${s.slice(0, 8)}…`);
  for (const span of otlp.spans) for (const name of Object.keys(span.attributes)) assert.ok(ALLOWED_ATTRIBUTES.has(name), name);
});

test("sampling: at ratio 0 a request without a sampled caller exports nothing; a caller's sampled traceparent still does; probes are never traced", async () => {
  assert.equal(stack.config.tracing?.sampler, 'parentbased_traceidratio');
  const from = otlp.spans.length;
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_help', arguments: {} } };
  const unsampled = hex(16);
  assert.equal((await mcp(call, {})).status, 200);
  assert.equal((await mcp(call, { traceparent: `00-${unsampled}-${hex(8)}-00` })).status, 200);
  const token = { 'content-type': 'application/x-www-form-urlencoded' };
  const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'svc_rt_notarealone', client_id: 'nobody' });
  await (await fetch(`${stack.authUrl}/api/oauth/token`, { method: 'POST', headers: token, body: form })).arrayBuffer();
  const probe = hex(16);
  for (const base of [stack.baseUrl, stack.authUrl])
    for (const path of ['/healthz', '/readyz', '/metrics'])
      await (await fetch(`${base}${path}`, { headers: { traceparent: `00-${probe}-${hex(8)}-01` } })).arrayBuffer();

  const sampled = hex(16);
  assert.equal((await mcp(call, { traceparent: `00-${sampled}-${hex(8)}-01` })).status, 200);
  const spans = await traceOf(sampled, (s) => s.some((x) => x.name === 'mcp') && s.some((x) => x.name === 'redis admit'));
  assert.ok(spans.some((x) => x.name === 'tools/call svc_help'));
  // Exports keep the order spans ended in, and the flush above sent everything ended before.
  const others = otlp.spans.slice(from).filter((x) => x.traceId !== sampled);
  assert.deepEqual(
    others.map((x) => `${x.service} ${x.name} ${x.traceId === probe ? '(probe)' : ''}`),
    [],
    'no span of an unsampled request or a probe',
  );
});

test('tracing off: no tracer, no export attempted, the route is the plain loop', async () => {
  const quiet = await startOtlpReceiver();
  const off = await outsideLoopBudget(() => startStack({ OTEL_EXPORTER_OTLP_ENDPOINT: quiet.url, OTEL_TRACES_EXPORTER: 'none' }));
  try {
    const person = await newPerson(off, 'off');
    const k = (
      await off.accounts.keys.createProjectKey({ project: person.slug, workspace: person.user.workspace, level: 'VIEWER', name: 'k' })
    ).key;
    const res = await fetch(`${off.baseUrl}/mcp/${person.slug}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'X-API-Key': k,
        traceparent: `00-${hex(16)}-${hex(8)}-01`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_help', arguments: {} } }),
    });
    assert.equal(res.status, 200);
    await off.flushTraces();
    assert.equal(off.config.tracing, null);
    assert.deepEqual(quiet.bodies, [], 'nothing was sent to the collector');
  } finally {
    await off.close();
    await quiet.close();
  }
});
