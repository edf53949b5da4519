/**
 * route() with tracing on (docs/operations.md "Traces"): the route is one span, its main steps
 * child spans, continuing the caller's trace (the traceparent header, else MCP 2026-07-28's
 * `params._meta`). Tracing off never reaches this file: route() runs its plain loop.
 *
 * The route's span starts when the parent is known: at once on a route without a body, after
 * readJsonBody on one with (the `_meta` is in the body). A spanned step before it is given its span
 * then, with the times it took.
 *
 * A request the sampler drops (docs/operations.md "Traces": sampling) costs one unrecorded span:
 * the rest of its steps run as the plain loop does, with no span, no attribute and no context
 * switch, and the rate limiter and the tool runner see no recording span, so they make none.
 */
import { context, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { SvcError } from '@svc/errors';
import { callerContext, httpMethodName, mcpMethodName, metaOf } from '@svc/telemetry';
import type { Exchange, Step } from './exchange.ts';

/**
 * The steps that are spans of their own: the credential, the policy, the rate-limit call and the
 * management operation (docs/gateway-pipeline.md). The others (transport, body, envelope,
 * revision, method) take microseconds and run inside the route's span: each span costs the
 * exporter more than such a step costs the request.
 */
const SPANNED_STEPS: ReadonlySet<string> = new Set([
  'authenticateStep',
  'resolvePolicy',
  'loadToolSet',
  'prepareToolCall',
  'prepareRestCall',
  'admitStep',
  'managementActorStep',
  'managementBucketStep',
  'runManagementStep',
  'reportLeakStep',
]);

/** The step after which the body, and so its `_meta`, is known (pipeline/steps.ts). */
const BODY_STEP = 'readJsonBodyStep';

interface Early {
  name: string;
  start: number;
  end: number;
}

/** Runs `steps` as route() does, each in its span; `fail` writes what a step throws. */
export function tracedSteps(
  name: string,
  steps: readonly Step[],
  tracer: Tracer,
  fail: (ex: Exchange, err: unknown) => void,
): (ex: Exchange) => Promise<void> {
  const bodyAt = steps.findIndex((s) => s.name === BODY_STEP);
  const rootAt = bodyAt + 1;
  return async (ex) => {
    const early: Early[] = [];
    const started = Date.now();
    let root: { span: Span; ctx: Context } | null = null;
    /** The route's span, or null when the sampler drops the request. */
    const open = () => {
      const parent = callerContext(ex.req.headers, metaOf(ex.body));
      const span = tracer.startSpan(name, { startTime: started }, parent.ctx);
      if (!span.isRecording()) return null;
      span.setAttributes({
        'svc.route': name,
        'svc.trace.parent': parent.source,
        'http.request.method': httpMethodName(ex.req.method ?? ''),
      });
      const ctx = trace.setSpan(parent.ctx, span);
      for (const e of early) tracer.startSpan(e.name, { startTime: e.start, attributes: { 'svc.step': e.name } }, ctx).end(e.end);
      return { span, ctx };
    };
    let failed: unknown = null;
    try {
      for (let i = 0; i < steps.length; i++) {
        const step = steps[i]!;
        if (i === rootAt) {
          root = open();
          if (!root) return await untraced(steps, i, ex, fail);
        }
        if (!SPANNED_STEPS.has(step.name)) {
          const pending = root ? context.with(root.ctx, () => step(ex)) : step(ex);
          if (pending) await pending;
        } else if (!root) {
          const start = Date.now();
          try {
            await step(ex);
          } finally {
            early.push({ name: step.name, start, end: Date.now() });
          }
        } else {
          await runStep(step, ex, tracer, root.ctx);
        }
        if (ex.res.headersSent) break;
      }
    } catch (err) {
      failed = err;
    }
    root ??= open();
    if (!root) {
      if (failed !== null) fail(ex, failed);
      return;
    }
    const { span } = root;
    if (failed !== null) context.with(root.ctx, () => fail(ex, failed));
    span.setAttribute('http.response.status_code', ex.res.statusCode);
    // The method as sent is the caller's text: only a known MCP method is exported as it is (@svc/telemetry).
    if (ex.rpc) span.setAttribute('mcp.method.name', mcpMethodName(ex.rpc.method));
    if (ex.version) span.setAttribute('mcp.protocol.version', ex.version);
    if (ex.res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
}

/** The steps from `from` on, unsampled: route()'s plain loop. */
async function untraced(steps: readonly Step[], from: number, ex: Exchange, fail: (ex: Exchange, err: unknown) => void): Promise<void> {
  try {
    for (let i = from; i < steps.length; i++) {
      const pending = steps[i]!(ex);
      if (pending) await pending;
      if (ex.res.headersSent) return;
    }
  } catch (err) {
    fail(ex, err);
  }
}

/** One step in its own span, active while it runs (its log lines and Redis calls see it). */
async function runStep(step: Step, ex: Exchange, tracer: Tracer, parent: Context): Promise<void> {
  const span = tracer.startSpan(step.name, { attributes: { 'svc.step': step.name } }, parent);
  try {
    await context.with(trace.setSpan(parent, span), () => step(ex));
  } catch (err) {
    span.setAttribute('svc.error.code', err instanceof SvcError ? err.code : 'internal');
    throw err;
  } finally {
    span.end();
  }
}
