/** GET /healthz (alive), /readyz (Redis reachable), /metrics (Prometheus text): docs/contract.md "Operator interface". */
import type { Express } from 'express';
import type { Redis } from '@svc/accounts';
import type { Metrics } from './metrics.ts';

export function mountHealth(app: Express, deps: { redis: Redis; metrics: Metrics }): void {
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    try {
      await deps.redis.ping();
      res.json({ status: 'ready', redis: 'ok' });
    } catch {
      res.status(503).json({ status: 'unavailable', redis: 'unreachable' });
    }
  });
  app.get('/metrics', async (_req, res) => {
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
}
