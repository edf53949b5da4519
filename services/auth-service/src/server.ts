/** startAuthService(): the auth host on its port, with its Redis connection; used by main.ts and tests. */
import type { AddressInfo } from 'node:net';
import type { Redis } from '@svc/accounts';
import { connectRedis, createAccounts, waitReady } from '@svc/accounts';
import { createBoundedServer, createDrain, HTTP_SERVER_BOUNDS, type HttpServerBounds } from '@svc/bounds';
import type { Config } from '@svc/config';
import { listenPort } from '@svc/config';
import { startWebhookWorker } from '@svc/webhooks';
import type { Logger } from '@svc/logger';
import { createLogger } from '@svc/logger';
import { startTracing, type Tracing } from '@svc/telemetry';
import type Provider from 'oidc-provider';
import { createApp, type AppDeps } from './app.ts';
import type { ThrottleLimits } from './http/throttle.ts';
import { loadSigningKeys } from './provider/signing-keys.ts';

export interface StartAuthServiceOptions {
  config: Config;
  logger?: Logger;
  /** A client to use instead of connecting to config.redisUrl (it is not closed by close()). */
  redis?: Redis;
  /** Brute-force limits (tests lower them). */
  limits?: Partial<ThrottleLimits>;
  /** oidc-provider's outgoing fetch, for tests (AppDeps.fetch). */
  fetch?: AppDeps['fetch'];
  /** The clock of the refresh replay window (tests move it). */
  now?: AppDeps['now'];
  /** DNS TXT lookups proving SSO domains (AppDeps.resolveTxt); tests give their own. */
  resolveTxt?: AppDeps['resolveTxt'];
  /** The HTTP server's bounds (docs/security.md \"Bounds\"); tests shorten the timeouts. */
  httpBounds?: Partial<HttpServerBounds>;
}

export interface RunningAuthService {
  url: string;
  port: number;
  provider: Provider;
  /** The service's tracing (TRACING_OFF unless configured; docs/operations.md "Traces"). */
  tracing: Tracing;
  /** After SIGTERM, before close(): not ready, still serving, for the notice period. */
  drain(): Promise<void>;
  close(): Promise<void>;
}

/** How often expiring and expired keys are swept for (docs/management.md "Expiry"). */
const EXPIRY_SWEEP_MS = 15 * 60_000;

/** Starts the auth-service on listenPort(config, config.authUrl), issuer config.authUrl. */
export async function startAuthService(opts: StartAuthServiceOptions): Promise<RunningAuthService> {
  const { config } = opts;
  const logger = opts.logger ?? createLogger({ service: 'auth-service', level: config.logLevel, format: config.logFormat });
  const ownRedis = !opts.redis;
  const redis =
    opts.redis ??
    connectRedis(config.redisUrl, {
      failFast: true,
      // An operation's commands, sent together, leave in one write (docs/auth-service.md "Storage round trips").
      batchWrites: true,
      cluster: config.redisCluster,
      sentinel: config.redisSentinel,
      name: 'auth-service',
    });
  await waitReady(redis, 15_000);
  const accounts = createAccounts(redis, {
    pepper: config.keyPepper,
    previousPepper: config.previousKeyPepper,
    waitReplicas: config.redisWaitReplicas,
  });
  const jwks = await loadSigningKeys(redis);
  const drain = createDrain();
  // Started before the app is built: the request spans and the traced adapter exist only when on.
  const tracing = await startTracing(config.tracing, 'auth-service');
  const { handler, provider, metrics, sweepKeyExpiries } = createApp({
    config,
    tracing,
    draining: () => drain.draining,
    redis,
    accounts,
    logger,
    jwks,
    ...(opts.limits ? { limits: opts.limits } : {}),
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.resolveTxt ? { resolveTxt: opts.resolveTxt } : {}),
  });

  const server = createBoundedServer(handler, { ...HTTP_SERVER_BOUNDS, ...opts.httpBounds });
  drain.attach(server);
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(listenPort(config, config.authUrl), ok);
  });
  const port = (server.address() as AddressInfo).port;
  logger.info('auth-service listening', { port, issuer: config.authUrl });
  // Expiring keys are announced and ended ones recorded (docs/management.md "Expiry"); a sweep
  // that meets an unreachable Redis is logged and the next one tries again.
  const sweep = (): void =>
    void sweepKeyExpiries().then(
      (r) => (r.warned || r.expired ? logger.info('key expiry sweep', r) : undefined),
      (err: unknown) => logger.warn('key expiry sweep failed', { err }),
    );
  const sweeper = setInterval(sweep, EXPIRY_SWEEP_MS);
  sweeper.unref();
  sweep();
  const webhooks = config.webhooks
    ? startWebhookWorker({
        redis,
        config,
        onError: (err: unknown) => logger.warn('webhook delivery turn failed', { err }),
        observe: (status, seconds) => metrics.durations.outbound('webhook', status, seconds),
      })
    : null;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    provider,
    tracing,
    drain: () => drain.notice(),
    async close() {
      clearInterval(sweeper);
      await webhooks?.stop();
      await new Promise<void>((ok) => {
        server.close(() => ok());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 5_000).unref();
      });
      if (ownRedis) redis.disconnect();
      await tracing.shutdown().catch((err: unknown) => logger.warn('traces not all sent', { err: String(err) }));
    },
  };
}
