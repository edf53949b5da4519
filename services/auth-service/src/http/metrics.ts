/** The auth-service's Prometheus metrics (one registry per app, so tests can run several). */
import { Counter, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  requests: Counter<'method' | 'status'>;
  tokens: Counter<'kind'>;
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
  };
}
