/**
 * The auth-service's request spans (docs/operations.md "Traces"): one span a request, named after
 * the OAuth endpoint it reached (oidc-provider's route names: token, authorization,
 * device_authorization, registration, introspection, ...) or, for the pages, `page`; the
 * caller's `traceparent` header continued. The span is active while the request runs, so the
 * adapter's Redis calls and the log lines are its children. Mounted only when tracing is on; the
 * probes are not traced, and a request the sampler drops gets no span work beyond the decision.
 */
import { context, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import { callerContext, httpMethodName } from '@svc/telemetry';
import { PROBE_PATHS, providerRoutes, ROUTES } from './routes.ts';

const ENDPOINTS = new Map<string, string>([
  ...Object.entries(providerRoutes()).map(([name, path]): [string, string] => [path, name]),
  [ROUTES.deviceToken.path, 'token'],
]);

export function traceRequests(tracer: Tracer): RequestHandler {
  return function traceRequest(req, res, next) {
    if (PROBE_PATHS.has(req.path.toLowerCase())) return next();
    const endpoint = ENDPOINTS.get(req.path);
    const name = endpoint ? `oauth ${endpoint}` : 'page';
    const parent = callerContext(req.headers, undefined);
    const span = tracer.startSpan(name, {}, parent.ctx);
    // Dropped by the sampler: no attributes, no context, and the adapter makes no span beneath.
    if (!span.isRecording()) return next();
    span.setAttributes({
      'svc.route': endpoint ?? 'page',
      'svc.trace.parent': parent.source,
      'http.request.method': httpMethodName(req.method),
      ...(endpoint ? { 'http.route': req.path } : {}),
    });
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once('finish', end);
    res.once('close', end);
    const active = trace.setSpan(parent.ctx, span);
    // A body parser's callbacks run from the request stream's events: bound to the span, so the
    // steps after it (and oidc-provider's adapter calls) stay inside it.
    context.bind(active, req);
    context.with(active, next);
  };
}
