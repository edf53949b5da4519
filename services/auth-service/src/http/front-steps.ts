/**
 * The steps in front of every route of the auth host (docs/conventions.md "Shape"), in the order
 * a request meets them: its trace span, its one client address, its count and time, the headers every
 * answer carries, the health routes, the Origin check and the Redis outage guard.
 */
import type { Express, RequestHandler } from 'express';
import type { Tracer } from '@opentelemetry/api';
import type { Redis } from '@svc/accounts';
import { clientAddress, strictTransportSecurity, trustFunction, type Config } from '@svc/config';
import { traceRequests } from './trace-requests.ts';
import { mountHealth } from './health.ts';
import { routeClass, type Metrics } from './metrics.ts';
import { originCheck } from './origin-check.ts';
import { PAGE_HEADERS } from './security-headers.ts';
import { storeOutageGuard } from './store-outage.ts';

/** What the front steps read. */
export interface FrontStepsDeps {
  config: Pick<Config, 'authUrl' | 'trustProxy'>;
  redis: Redis;
  metrics: Metrics;
  tracer: Tracer | null;
  draining: () => boolean;
}

/**
 * Mounts the front steps on `app`, before any route, and returns them in order without the health
 * routes (which answer only GET on their own paths): every request past those meets exactly these,
 * and the token endpoint's direct route (direct-route.ts) runs the same list.
 */
export function mountFrontSteps(app: Express, deps: FrontStepsDeps): RequestHandler[] {
  const { config, metrics, tracer } = deps;
  app.disable('x-powered-by');
  // docs/operations.md "Proxies": only the named proxies' X-Forwarded-For is read.
  const trusted = trustFunction(config.trustProxy);
  app.set('trust proxy', trusted);
  const steps: RequestHandler[] = [];
  const use = (step: RequestHandler): void => {
    app.use(step);
    steps.push(step);
  };
  // First, so every later step runs inside the request's span; absent when tracing is off.
  if (tracer) use(traceRequests(tracer));
  // req.ip is the one client address every throttle and audit entry uses, decided as the gateway
  // decides it (clientAddress of @svc/config).
  use(function resolveClientAddress(req, _res, next) {
    Object.defineProperty(req, 'ip', { value: clientAddress(req, trusted), configurable: true });
    next();
  });
  use(function countRequests(req, res, next) {
    const start = performance.now();
    // Told from the path as it arrived: a later step may rewrite req.url (the device grant's alias).
    const route = routeClass(req.path);
    res.on('finish', () => {
      metrics.requests.inc({ method: req.method, status: String(res.statusCode) });
      metrics.durations.request(route, res.statusCode, (performance.now() - start) / 1_000);
    });
    next();
  });
  const hsts = strictTransportSecurity(config.authUrl);
  use(function securityHeaders(req, res, next) {
    if (hsts) res.set('Strict-Transport-Security', hsts);
    // oidc-provider's own HTML under /api/ (its error page) sets them in renderError.
    if (!req.path.startsWith('/api/') && !req.path.startsWith('/.well-known/')) res.set(PAGE_HEADERS);
    next();
  });
  mountHealth(app, { redis: deps.redis, metrics, draining: deps.draining });
  use(originCheck({ authUrl: config.authUrl }));
  use(storeOutageGuard(deps.redis));
  return steps;
}
