/** The auth-service's Prometheus metrics (one registry per app, so tests can run several). */
import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import { durationHistograms, type Durations, type RouteClass } from '@svc/telemetry';
import { PROBE_PATHS, providerRoutes, ROUTES } from './routes.ts';

export interface Metrics {
  registry: Registry;
  requests: Counter<'method' | 'status'>;
  tokens: Counter<'kind'>;
  /**
   * The duration histograms (docs/operations.md "Reading the metrics"): requests by route class
   * (front-steps.ts), the Redis client's commands (app.ts), webhook deliveries (server.ts).
   */
  durations: Durations;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Counter({
      name: 'svc_auth_http_requests_total',
      help: 'HTTP requests by method and status',
      labelNames: ['method', 'status'],
      registers: [registry],
    }),
    tokens: new Counter({
      name: 'svc_auth_tokens_issued_total',
      help: 'Tokens and codes issued by kind',
      labelNames: ['kind'],
      registers: [registry],
    }),
    durations: durationHistograms(registry),
  };
}

/** oidc-provider's endpoints (docs/auth-service.md "Endpoints"), the device grant's alias among them. */
const OAUTH_PATHS: ReadonlySet<string> = new Set([...Object.values(providerRoutes()), ROUTES.deviceToken.path]);

/**
 * The route class a request's duration is told by, from its path as it arrived: `oauth` for
 * oidc-provider's endpoints and metadata, `health` for the probes, `dashboard`, and `page` for
 * the pages and every other path (a path is never a label value: docs/security.md "Bounds").
 */
export function routeClass(path: string): RouteClass {
  if (OAUTH_PATHS.has(path) || path.startsWith('/api/oauth/') || path.startsWith('/.well-known/')) return 'oauth';
  if (PROBE_PATHS.has(path.toLowerCase())) return 'health';
  if (path === ROUTES.dashboard.path || path.startsWith(`${ROUTES.dashboard.path}/`)) return 'dashboard';
  return 'page';
}
