/**
 * Everything off the hot path, on Express: health, readiness, metrics, the RFC 9728 protected
 * resource metadata, the OpenAPI document, and the clear 404/405 answers for wrong routes.
 */
import { MCP_SCOPES } from '@svc/policy';
import express, { type NextFunction, type Request, type Response } from 'express';
import { READY_TIMEOUT_MS, pingWithin, type Redis } from '@svc/accounts';
import { SvcError, asSvcError, toRestError } from '@svc/errors';
import type { Logger } from '@svc/logger';
import type { Metrics } from './metrics.ts';

export interface ExpressDeps {
  redis: Redis;
  logger: Logger;
  metrics: Metrics;
  baseUrl: string;
  authUrl: string;
  openApi: () => unknown;
  cacheSize: () => number;
  draining: () => boolean;
}

/** Slugs as the account model allows them; anything else is a 404 here. */
const SLUG = /^[a-z0-9][a-z0-9-]{1,62}$/;

export function createExpressApp(deps: ExpressDeps) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.get('/readyz', async (_req, res) => {
    if (deps.draining()) return void res.status(503).json({ status: 'draining' });
    // Truthful within a second, even when Redis stalls without closing the connection (paused).
    if (await pingWithin(deps.redis, READY_TIMEOUT_MS)) res.json({ status: 'ready', redis: 'ok' });
    else res.status(503).json({ status: 'unavailable', redis: 'unreachable' });
  });

  app.get('/metrics', async (_req, res) => {
    deps.metrics.cacheSize.set(deps.cacheSize());
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });

  // RFC 9728 §3.1: the metadata of /mcp/<slug> lives at the path-inserted well-known URL. It is
  // answered for any well-formed slug, so it reveals nothing about which projects exist.
  app.options('/.well-known/oauth-protected-resource/mcp/:slug', (_req, res) => {
    res.set(PUBLIC_CORS).status(204).end();
  });
  app.get('/.well-known/oauth-protected-resource/mcp/:slug', (req, res) => {
    const slug = req.params.slug;
    if (!SLUG.test(slug)) throw new SvcError('not_found', { message: `Not found: no MCP endpoint /mcp/${slug.slice(0, 80)}` });
    res
      .set(PUBLIC_CORS)
      .set('Cache-Control', 'public, max-age=300')
      .json({
        resource: `${deps.baseUrl}/mcp/${slug}`,
        authorization_servers: [deps.authUrl],
        // docs/contract.md "OAuth scopes and refresh": the four scopes, never offline_access.
        scopes_supported: [...MCP_SCOPES],
        bearer_methods_supported: ['header'],
        resource_name: `svc project ${slug}`,
        resource_documentation: `${deps.baseUrl}/api/v1/openapi.json`,
      });
  });

  app.get('/api/v1/openapi.json', (_req, res) => {
    res.set(PUBLIC_CORS).json(deps.openApi());
  });

  // Device-flow and OAuth endpoints live on {auth_url}; a POST here is the 405 of docs/contract.md "Errors".
  app.all(/^\/api\/oauth\//, (req, res) => {
    const err = new SvcError('method_not_allowed', {
      remedy: `OAuth and device-flow requests go to the authorization host: ${deps.authUrl}${req.path}`,
    });
    res.status(405).set('Allow', '').json(toRestError(err));
  });

  app.use((req, _res, next) => {
    next(
      new SvcError('not_found', {
        message: `Not found: ${req.method} ${req.path.slice(0, 200)}`,
        remedy: 'MCP: POST /mcp/<project_slug>. REST: see /api/v1/openapi.json.',
      }),
    );
  });

  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    // Express's own 4xx (a path segment whose percent-encoding does not decode): the client's error.
    const status = (err as { status?: unknown } | null)?.status;
    const e =
      err instanceof SvcError || typeof status !== 'number' || status < 400 || status > 499
        ? asSvcError(err)
        : new SvcError(status === 404 ? 'not_found' : 'invalid_request', {
            message: `Invalid request: the path ${req.path.slice(0, 200)} could not be read`,
            remedy: 'Check the percent-encoding of the URL.',
          });
    if (e.status >= 500) deps.logger.error('request failed', { path: req.path, detail: e.detail });
    res.status(e.status).set(e.headers).json(toRestError(e));
  });

  return app;
}

const PUBLIC_CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, OPTIONS',
  'Access-Control-Allow-Headers': 'MCP-Protocol-Version, Content-Type',
};
