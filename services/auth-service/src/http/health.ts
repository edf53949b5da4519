/** GET /healthz (alive), /readyz (Redis reachable), /metrics (Prometheus text): docs/contract.md "Operator interface". */
import type { Express } from 'express';
import { READY_TIMEOUT_MS, pingWithin, type Redis } from '@svc/accounts';
import type { Metrics } from './metrics.ts';
import { ROUTES } from './routes.ts';

export function mountHealth(app: Express, deps: { redis: Redis; metrics: Metrics; draining: () => boolean }): void {
  app.get(ROUTES.healthz.path, (_req, res) => {
    res.json({ status: 'ok' });
  });
  // Truthful within a second, even when Redis stalls without closing the connection (paused).
  app.get(ROUTES.readyz.path, async (_req, res) => {
    if (deps.draining()) return void res.status(503).json({ status: 'draining' });
    if (await pingWithin(deps.redis, READY_TIMEOUT_MS)) res.json({ status: 'ready', redis: 'ok' });
    else res.status(503).json({ status: 'unavailable', redis: 'unreachable' });
  });
  app.get(ROUTES.metrics.path, async (_req, res) => {
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
}
