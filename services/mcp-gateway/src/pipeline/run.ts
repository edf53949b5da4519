/**
 * Runs a route's steps in order and writes whatever one throws with the route's one error writer
 * (docs/gateway-pipeline.md). Refusals are logged the same way on every route: `http` level for a
 * client's error, `error` for ours; the 401 challenge and the Deprecation header are added here,
 * once, for every protocol.
 */
import { isStoreError, STORE_DOWN_RETRY_AFTER_SECONDS } from '@svc/accounts';
import { asSvcError, SvcError, toJsonRpcError, toRestError } from '@svc/errors';
import type { Tracer } from '@opentelemetry/api';
import type { Logger } from '@svc/logger';
import type { Target } from '../auth/caller.ts';
import type { CheckedProof } from '../auth/dpop-binding.ts';
import { EventStream } from '../http/event-stream.ts';
import { jsonText } from '../http/json-text.ts';
import { sendEmpty, sendJson, sendJsonText } from '../http/respond.ts';
import type { Exchange, Step } from './exchange.ts';
import { tracedSteps } from './traced-run.ts';

/** RFC 9745 Deprecation: the moment the rlm_ names were deprecated (2026-01-01T00:00:00Z). */
const LEGACY_DEPRECATION = '@1767225600';

export interface RunDeps {
  logger: Logger;
  /** The WWW-Authenticate value of a 401 or an insufficient_scope 403 (RFC 6750 §3, RFC 9728 §5.1). */
  challenge: (target: Target, err: SvcError) => string;
  /** The structured denial's `_meta` of an authorization refusal, or null (docs/errors.md "Structured denials"). */
  denial?: (err: SvcError) => Record<string, unknown> | null;
  /**
   * Uses up a DPoP proof left unclaimed by a request refused before its rate-limit call, so it
   * cannot be sent again with another body (RFC 9449 §11.1); not awaited.
   */
  claimLeftProof?: (proof: CheckedProof) => Promise<void>;
  /** Tracing's tracer when it is on (docs/operations.md "Traces"); null: the plain loop, no span. */
  tracer?: Tracer | null;
}

export type Route = (ex: Exchange) => Promise<void>;

export function route(name: string, steps: readonly Step[], deps: RunDeps): Route {
  if (deps.tracer) return tracedSteps(name, steps, deps.tracer, (ex, err) => failed(name, ex, err, deps));
  return async (ex) => {
    try {
      for (let i = 0; i < steps.length; i++) {
        // A step that finishes at once is not awaited: no microtask turn for it.
        const pending = steps[i]!(ex);
        if (pending) await pending;
        if (ex.res.headersSent) return;
      }
    } catch (err) {
      failed(name, ex, err, deps);
    }
  };
}

/** What a step threw: written as the protocol's error; a DPoP proof left unclaimed is used up. */
function failed(name: string, ex: Exchange, err: unknown, deps: RunDeps): void {
  writeError(name, ex, storeAware(err), deps);
  const left = ex.proof;
  if (left && deps.claimLeftProof) {
    ex.proof = null;
    deps
      .claimLeftProof(left)
      .catch((e: unknown) => deps.logger.http('DPoP proof not claimed', { requestId: ex.requestId, err: String(e) }));
  }
}

/** A step's Redis failure (unreachable, timed out) is the store's outage: 503, never a 500. */
function storeAware(err: unknown): SvcError {
  if (err instanceof SvcError || !isStoreError(err)) return asSvcError(err);
  return new SvcError('service_unavailable', {
    message: 'Service temporarily unavailable: storage cannot be reached',
    detail: String(err),
  });
}

function writeError(name: string, ex: Exchange, e: SvcError, deps: RunDeps): void {
  const meta = { route: name, requestId: ex.requestId, code: e.code, detail: e.detail };
  if (e.status >= 500) deps.logger.error('request failed', meta);
  else deps.logger.http('request refused', meta);
  if (ex.res.headersSent) {
    // An answer already streaming (a tools/call relaying progress) ends with the error as its last event.
    if (ex.events && ex.protocol === 'jsonrpc') ex.events.end(jsonText(toJsonRpcError(e, ex.id)));
    return;
  }
  const headers = { ...ex.headers, ...e.headers };
  if (e.status === 401 || e.code === 'insufficient_scope') headers['WWW-Authenticate'] = deps.challenge(ex.target, e);
  if (ex.legacy) headers['Deprecation'] = LEGACY_DEPRECATION;
  if (e.code === 'payload_too_large') headers['Connection'] = 'close';
  // A 503 says when to come back (RFC 9110 §10.2.3); the store's outages are the only 503s here.
  if (e.status === 503) headers['Retry-After'] ??= String(STORE_DOWN_RETRY_AFTER_SECONDS);
  const sent = withDenial(e, deps);
  if (ex.protocol === 'jsonrpc') sendJson(ex.res, e.inBody ? 200 : e.status, toJsonRpcError(sent, ex.id), headers);
  else sendJson(ex.res, e.status, toRestError(sent), headers);
}

/** The refusal with its structured denial in `data._meta`, beside everything it already says. */
function withDenial(e: SvcError, deps: RunDeps): SvcError {
  const meta = deps.denial?.(e);
  if (!meta) return e;
  const { message, remedy, detail, headers, inBody, scheme } = e;
  return new SvcError(e.code, { message, remedy, detail, headers, inBody, scheme, data: { ...e.data, _meta: meta } });
}

/** The success writer: the result with the settled headers. */
export function respond(ex: Exchange, body: unknown, status = 200): void {
  respondText(ex, jsonText(body), status);
}

/**
 * The success writer for a body already in text: JSON (an envelope joined around a kept result)
 * or the `contentType` given (the metrics); `bytes`, its UTF-8 length when already known. On an
 * answer already streaming, the text is its last event.
 */
export function respondText(ex: Exchange, text: string, status = 200, contentType?: string, bytes: number | null = null): void {
  // An answer already streaming (a tools/call relaying progress) ends with this text as its last event.
  if (ex.events) return ex.events.end(text);
  const headers = ex.legacy ? { ...ex.headers, Deprecation: LEGACY_DEPRECATION } : ex.headers;
  sendJsonText(ex.res, status, text, headers, contentType, bytes);
}

/** The success writer of an answer sent as an event stream (a tools/call relaying its progress), opened now. */
export function respondEvents(ex: Exchange): EventStream {
  return new EventStream(ex.res, ex.legacy ? { ...ex.headers, Deprecation: LEGACY_DEPRECATION } : ex.headers);
}

/** The success writer of an answer without a body (a preflight's 204, a notification's 202). */
export function respondEmpty(ex: Exchange, status: number): void {
  sendEmpty(ex.res, status, ex.headers);
}
