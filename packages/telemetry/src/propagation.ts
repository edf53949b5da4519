/**
 * The caller's trace context (W3C Trace Context): from the `traceparent`/`tracestate` HTTP headers,
 * else from a JSON-RPC request's `params._meta` (MCP 2026-07-28 carries them there). The header
 * wins when both are sent: it is what every hop of the transport sees and is read before the body
 * (docs/operations.md "Traces").
 */
import { defaultTextMapGetter, ROOT_CONTEXT, trace, type Context } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MAX_TRACESTATE_LENGTH } from './bounds.ts';

const w3c = new W3CTraceContextPropagator();

/** Where a request's parent came from (the `svc.trace.parent` attribute). */
export type ParentSource = 'header' | 'meta' | 'none';

type Carrier = Record<string, unknown>;

function extract(carrier: Carrier): Context | null {
  const parent = carrier['traceparent'];
  if (typeof parent !== 'string') return null;
  const state = carrier['tracestate'];
  const fields: Record<string, string> = { traceparent: parent };
  if (typeof state === 'string' && state.length <= MAX_TRACESTATE_LENGTH) fields['tracestate'] = state;
  const ctx = w3c.extract(ROOT_CONTEXT, fields, defaultTextMapGetter);
  // A malformed traceparent leaves no span context: the request starts a new trace.
  return trace.getSpanContext(ctx) ? ctx : null;
}

/** The parent context of a request: its headers' trace context, else its `_meta`'s, else none. */
export function callerContext(headers: Carrier, meta: unknown): { ctx: Context; source: ParentSource } {
  const fromHeader = extract(headers);
  if (fromHeader) return { ctx: fromHeader, source: 'header' };
  const fromMeta = meta && typeof meta === 'object' && !Array.isArray(meta) ? extract(meta as Carrier) : null;
  if (fromMeta) return { ctx: fromMeta, source: 'meta' };
  return { ctx: ROOT_CONTEXT, source: 'none' };
}

/** A JSON-RPC body's `params._meta`, if it has one. */
export function metaOf(body: unknown): unknown {
  if (!body || typeof body !== 'object') return undefined;
  const params = (body as { params?: unknown }).params;
  if (!params || typeof params !== 'object') return undefined;
  return (params as { _meta?: unknown })._meta;
}
