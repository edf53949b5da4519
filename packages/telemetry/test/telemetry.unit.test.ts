/**
 * The bounds and the allow-list of what a span carries, the caller's context read from a header or
 * `_meta`, and trace ids in log lines (docs/operations.md "Traces").
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { trace } from '@opentelemetry/api';
import { createLogger } from '@svc/logger';
import {
  ALLOWED_ATTRIBUTES,
  callerContext,
  filterAttributes,
  httpMethodName,
  MAX_ATTRIBUTE_LENGTH,
  MAX_ATTRIBUTES_PER_SPAN,
  MAX_LINKS_PER_SPAN,
  MAX_TRACESTATE_LENGTH,
  mcpMethodName,
  OTHER_VALUE,
  spanName,
  startTracing,
  TRACING_OFF,
} from '../src/index.ts';
import { samplerOf } from '../src/sampler.ts';

const PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

test('only allowed attribute names pass, at most MAX_ATTRIBUTES_PER_SPAN, none longer than MAX_ATTRIBUTE_LENGTH', () => {
  const out = filterAttributes({
    authorization: 'Bearer x',
    'http.url': '/x?code=1',
    'svc.route': 'r'.repeat(500),
    ['__proto__']: 'x',
    constructor: 'x',
  });
  assert.deepEqual(Object.keys(out), ['svc.route']);
  assert.equal(out['svc.route'], OTHER_VALUE, 'a name longer than any of ours is no name of ours');
  const many = Object.fromEntries([...ALLOWED_ATTRIBUTES].map((n) => [n, 'v']));
  assert.ok(ALLOWED_ATTRIBUTES.size > MAX_ATTRIBUTES_PER_SPAN);
  assert.equal(Object.keys(filterAttributes(many)).length, MAX_ATTRIBUTES_PER_SPAN);
  for (const value of Object.values(filterAttributes({ 'svc.step': 's'.repeat(96) })))
    assert.ok(String(value).length <= MAX_ATTRIBUTE_LENGTH);
});

test('every value comes from its fixed set: an unknown MCP or HTTP method, an escape or a key-shaped text is exported as OTHER_VALUE', () => {
  const hostile = [
    'svc_live_3kT9Zq7XwV2mN8pL5rB1cD',
    'Bearer svc_at_0123456789abcdef',
    '\u001b[2J\u001b]0;pwned\u0007',
    'tools/call\n',
    'a'.repeat(128),
  ];
  for (const h of hostile) {
    const out = filterAttributes({
      'mcp.method.name': h,
      'http.request.method': h,
      'svc.trace.parent': h,
      'mcp.protocol.version': h,
      'db.system.name': h,
      'svc.route': h,
      'http.response.status_code': h,
    });
    assert.deepEqual(
      out,
      {
        'mcp.method.name': OTHER_VALUE,
        'http.request.method': OTHER_VALUE,
        'svc.trace.parent': OTHER_VALUE,
        'mcp.protocol.version': OTHER_VALUE,
        'db.system.name': OTHER_VALUE,
        ...(/^[\w/][\w./:{} -]{0,95}$/.test(h) ? { 'svc.route': h } : { 'svc.route': OTHER_VALUE }),
      },
      JSON.stringify(h),
    );
  }
  assert.deepEqual(
    filterAttributes({ 'mcp.method.name': 'tools/call', 'http.request.method': 'POST', 'mcp.protocol.version': '2025-06-18' }),
    {
      'mcp.method.name': 'tools/call',
      'http.request.method': 'POST',
      'mcp.protocol.version': '2025-06-18',
    },
  );
  assert.equal(mcpMethodName('tools/call'), 'tools/call');
  assert.equal(mcpMethodName('svc_live_x'), OTHER_VALUE);
  assert.equal(httpMethodName('BREW'), OTHER_VALUE);
  assert.equal(spanName('tools/call svc_help'), 'tools/call svc_help');
  assert.equal(spanName('tools/call \u001b[31m'), OTHER_VALUE);
});

test('the header is read first, then _meta; a malformed traceparent or an over-long tracestate is not continued', () => {
  const other = '00-11111111111111111111111111111111-2222222222222222-01';
  const header = callerContext({ traceparent: PARENT }, { traceparent: other });
  assert.equal(header.source, 'header');
  assert.equal(trace.getSpanContext(header.ctx)?.traceId, '0af7651916cd43dd8448eb211c80319c');
  const meta = callerContext({ traceparent: 'nonsense' }, { traceparent: other, tracestate: 'a=1' });
  assert.equal(meta.source, 'meta');
  assert.equal(trace.getSpanContext(meta.ctx)?.traceState?.get('a'), '1');
  assert.equal(callerContext({}, { traceparent: 42 }).source, 'none');
  const long = callerContext({ traceparent: PARENT, tracestate: `a=${'x'.repeat(MAX_TRACESTATE_LENGTH)}` }, undefined);
  assert.equal(long.source, 'header');
  assert.equal(trace.getSpanContext(long.ctx)?.traceState, undefined, 'the trace continues without the over-long state');
});

test('tracing off is TRACING_OFF: no tracer', async () => {
  assert.equal(await startTracing(null, 'x'), TRACING_OFF);
  assert.equal(TRACING_OFF.tracer, null);
});

test('with tracing on, a log line written inside a span names its trace and span; a span keeps MAX_LINKS_PER_SPAN links', async () => {
  // Nothing is flushed: the batch's timer does not hold the process, and the test needs no receiver.
  const tracing = await startTracing(
    { url: 'http://127.0.0.1:9/v1/traces', serviceName: null, sampler: 'always_on', ratio: 1, headers: {} },
    'unit',
  );
  const stream = new PassThrough();
  let out = '';
  stream.on('data', (d: Buffer) => (out += d.toString()));
  const logger = createLogger({ service: 't', stream });
  const tracer = tracing.tracer!;
  const ids = tracer.startActiveSpan('s', (span) => {
    logger.info('inside');
    span.end();
    return span.spanContext();
  });
  logger.info('outside');
  const [inside, outside] = out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(inside!['trace_id'], ids.traceId);
  assert.equal(inside!['span_id'], ids.spanId);
  assert.equal(outside!['trace_id'], undefined);
  const link = { context: ids };
  const linked = tracer.startSpan('l', { links: Array.from({ length: MAX_LINKS_PER_SPAN + 5 }, () => link) });
  assert.equal((linked as unknown as { links: unknown[] }).links.length, MAX_LINKS_PER_SPAN);
  linked.end();
});

test("samplers: parentbased_* follow the caller's sampled flag; the ratio decides only a request without a parent", () => {
  const unsampledParent = callerContext({ traceparent: PARENT.replace(/-01$/, '-00') }, undefined).ctx;
  const sampledParent = callerContext({ traceparent: PARENT }, undefined).ctx;
  const root = callerContext({}, undefined).ctx;
  const keeps = (name: Parameters<typeof samplerOf>[0], ratio: number, ctx: typeof root, traceId = 'f'.repeat(32)) =>
    samplerOf(name, ratio).shouldSample(ctx, traceId, 'x', 0, {}, []).decision !== 0;
  assert.equal(keeps('parentbased_traceidratio', 0, sampledParent), true, 'a sampled caller is kept at ratio 0');
  assert.equal(keeps('parentbased_traceidratio', 1, unsampledParent), false, 'an unsampled caller is dropped at ratio 1');
  assert.equal(keeps('parentbased_traceidratio', 0, root), false);
  assert.equal(keeps('parentbased_traceidratio', 1, root), true);
  assert.equal(keeps('parentbased_always_off', 1, sampledParent), true);
  assert.equal(keeps('parentbased_always_off', 1, root), false);
  assert.equal(keeps('parentbased_always_on', 0, root), true);
  assert.equal(keeps('always_off', 1, sampledParent), false);
  assert.equal(keeps('always_on', 0, unsampledParent), true);
  assert.equal(keeps('traceidratio', 0, sampledParent), false, 'traceidratio ignores the parent');
  assert.equal(keeps('traceidratio', 1, unsampledParent), true);
  const half = ['0'.repeat(32), 'f'.repeat(32)].map((id) => keeps('traceidratio', 0.5, root, id));
  assert.deepEqual(half.toSorted(), [false, true], 'at 0.5 the trace id decides');
});
