/**
 * The gateway's node:http request handler (docs/gateway-pipeline.md "One router"): the route the
 * router finds runs the request's exchange; its answer is counted and timed, and a failure to
 * write an error ends the connection.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { clientAddress, strictTransportSecurity, trustFunction, type Config } from '@svc/config';
import type { Logger } from '@svc/logger';
import type { Metrics } from './metrics.ts';
import type { OriginPolicy } from './origins.ts';
import { newExchange } from './pipeline/exchange.ts';
import { ACCOUNT } from './pipeline/path-steps.ts';
import type { GatewayRoute } from './routes.ts';
import type { RouteMatch } from './http/router.ts';

/** What the handler reads. */
export interface RequestHandlerDeps {
  config: Pick<Config, 'baseUrl' | 'trustProxy'>;
  match: (method: string, url: string) => RouteMatch<GatewayRoute>;
  origins: Pick<OriginPolicy, 'corsHeaders'>;
  metrics: Pick<Metrics, 'countRequest' | 'durations'>;
  logger: Logger;
}

/** The handler node:http calls with every request. */
export function requestHandler(deps: RequestHandlerDeps) {
  const { match, origins, metrics, logger } = deps;
  const { durations } = metrics;
  const trustProxy = trustFunction(deps.config.trustProxy);
  const hsts = strictTransportSecurity(deps.config.baseUrl);
  return function handler(req: IncomingMessage, res: ServerResponse): void {
    const start = performance.now();
    // RFC 6797: an https deployment tells browsers to keep to https, on every answer.
    if (hsts) res.setHeader('Strict-Transport-Security', hsts);
    const { route, params, path } = match(req.method ?? 'GET', req.url ?? '/');
    const ex = newExchange(req, res, {
      requestId: randomUUID(),
      source: clientAddress(req, trustProxy),
      target: ACCOUNT,
      protocol: route.protocol,
      headers: route.cors ? origins.corsHeaders(req) : {},
      path,
      params,
    });
    route.run(ex).then(
      () => {
        // The answer is written (or the connection gone) when the route's steps are done.
        durations.request(route.timing, res.statusCode, (performance.now() - start) / 1_000);
        if (route.metric) metrics.countRequest(route.metric, res.statusCode);
      },
      (err: unknown) => {
        // route() wrote every error a step threw; this one came from writing it: nothing more can be sent.
        logger.error('unhandled request failure', { err });
        res.destroy();
      },
    );
  };
}
