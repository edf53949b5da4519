/** startGateway(): the gateway on its port, with its Redis connections; used by main.ts and tests. */
import type { AddressInfo } from 'node:net';
import type { Redis } from '@svc/accounts';
import { connectRedis, createAccounts } from '@svc/accounts';
import { createBoundedServer, createDrain, HTTP_SERVER_BOUNDS, type HttpServerBounds } from '@svc/bounds';
import type { Config } from '@svc/config';
import { listenPort } from '@svc/config';
import type { Logger } from '@svc/logger';
import { createLogger } from '@svc/logger';
import { startTracing, type Tracing } from '@svc/telemetry';
import { createGateway } from './app.ts';
import { createOAuthTokenVerifier } from './auth/oauth-token-verifier.ts';
import type { ResolveTxt } from '@svc/sso';

export interface StartGatewayOptions {
  config: Config;
  logger?: Logger;
  /** A client to use instead of connecting to config.redisUrl (it is not closed by close()). */
  redis?: Redis;
  /** The clock of expiry checks and rate-limit windows; tests pass one they control (@svc/testkit testClock). */
  now?: () => number;
  /** The HTTP server's bounds (docs/security.md \"Bounds\"); tests shorten the timeouts. */
  httpBounds?: Partial<HttpServerBounds>;
  /** DNS TXT lookups of single sign-on's domain proofs; tests give their own (no outbound DNS). */
  resolveTxt?: ResolveTxt;
}

export interface RunningGateway {
  url: string;
  port: number;
  gateway: ReturnType<typeof createGateway>;
  /** The service's tracing (TRACING_OFF unless configured; docs/operations.md "Traces"). */
  tracing: Tracing;
  /** After SIGTERM, before close(): not ready, still serving, for the notice period. */
  drain(): Promise<void>;
  close(): Promise<void>;
}

export async function startGateway(opts: StartGatewayOptions): Promise<RunningGateway> {
  const { config } = opts;
  const logger = opts.logger ?? createLogger({ service: 'mcp-gateway', level: config.logLevel, format: config.logFormat });
  const ownRedis = !opts.redis;
  const redis =
    opts.redis ??
    connectRedis(config.redisUrl, {
      failFast: true,
      batchWrites: true,
      cluster: config.redisCluster,
      sentinel: config.redisSentinel,
      name: 'mcp-gateway',
    });
  // The knowledge tools' own connection (docs/knowledge-tools.md "Event-loop budget"): an upload
  // or an index load moves megabytes, and one connection answers in order, so on the request
  // connection every other tenant's admit call would wait behind them.
  const knowledgeRedis = ownRedis
    ? connectRedis(config.redisUrl, {
        failFast: true,
        cluster: config.redisCluster,
        sentinel: config.redisSentinel,
        name: 'mcp-gateway-knowledge',
      })
    : redis;
  const subscriber = connectRedis(config.redisUrl, {
    cluster: config.redisCluster,
    sentinel: config.redisSentinel,
    name: 'mcp-gateway-invalidation',
  });
  const now = opts.now ?? Date.now;
  const accounts = createAccounts(redis, {
    pepper: config.keyPepper,
    previousPepper: config.previousKeyPepper,
    waitReplicas: config.redisWaitReplicas,
    now,
  });
  const oauth = createOAuthTokenVerifier({ redis, baseUrl: config.baseUrl, now });
  const drain = createDrain();
  // Started before the app is built: its steps are wrapped in spans only when tracing is on.
  const tracing = await startTracing(config.tracing, 'mcp-gateway');
  const gateway = createGateway({
    tracing,
    config,
    redis,
    knowledgeRedis,
    accounts,
    logger,
    oauth,
    now,
    draining: () => drain.draining,
    ...(opts.resolveTxt ? { resolveTxt: opts.resolveTxt } : {}),
  });
  redis.on('ready', () => logger.info('redis ready'));
  redis.on('end', () => logger.warn('redis connection ended'));
  await gateway.start(subscriber);

  const server = createBoundedServer(gateway.handler, { ...HTTP_SERVER_BOUNDS, ...opts.httpBounds });
  drain.attach(server);
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(listenPort(config, config.baseUrl), ok);
  });
  const port = (server.address() as AddressInfo).port;
  logger.info('mcp-gateway listening', { port, baseUrl: config.baseUrl });

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    gateway,
    tracing,
    drain: () => drain.notice(),
    async close() {
      await new Promise<void>((ok) => {
        server.close(() => ok());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 5_000).unref();
      });
      await gateway.stop();
      subscriber.disconnect();
      if (ownRedis) {
        redis.disconnect();
        knowledgeRedis.disconnect();
      }
      await tracing.shutdown().catch((err: unknown) => logger.warn('traces not all sent', { err: String(err) }));
    },
  };
}
