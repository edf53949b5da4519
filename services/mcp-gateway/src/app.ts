/**
 * createGateway(deps): the gateway as a plain node:http request handler. One router
 * (http/router.ts) finds the route of every request in one table (routes.ts), and the route's
 * pipeline answers it (docs/gateway-pipeline.md). No framework sits in front: Express's router and
 * body parser in front of the hot path cost about two thirds of the throughput (docs/benchmarks.md).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Accounts, Redis } from '@svc/accounts';
import { clientAddress, strictTransportSecurity, trustFunction, type Config } from '@svc/config';
import type { SvcError } from '@svc/errors';
import { createMailer, type Mailer } from '@svc/mail';
import { createSsoStore, defaultResolveTxt, ssoSettings, type ResolveTxt } from '@svc/sso';
import { createManagement } from '@svc/management';
import { createEmbedder } from '@svc/knowledge';
import type { Logger } from '@svc/logger';
import type { Tracing } from '@svc/telemetry';
import { createAuthenticate } from './auth/authenticate.ts';
import type { ResolvedCaller, Target } from './auth/caller.ts';
import { claimProof, createDpopBinding } from './auth/dpop-binding.ts';
import type { OAuthTokenVerifier } from './auth/oauth-types.ts';
import { ResolutionCache } from './auth/resolution-cache.ts';
import { createResolver } from './auth/resolve-credential.ts';
import { createRouter } from './http/router.ts';
import { toolCaller } from './auth/tool-caller.ts';
import {
  acceptNotification,
  dispatch,
  parseEnvelope,
  prepareToolCall,
  resolveMethod,
  selectRevision,
  type MethodTable,
} from './mcp/steps.ts';
import { SERVER_INFO } from './mcp/protocol.ts';
import { initialize } from './methods/initialize.ts';
import { ping } from './methods/ping.ts';
import { serverDiscover } from './methods/server-discover.ts';
import { runTool, toolsCall } from './methods/tools-call.ts';
import { toolsList } from './methods/tools-list.ts';
import { createMetrics } from './metrics.ts';
import { createOriginPolicy } from './origins.ts';
import { newExchange } from './pipeline/exchange.ts';
import { ACCOUNT } from './pipeline/path-steps.ts';
import {
  admit,
  authenticate as authenticateStep,
  checkOriginOnly,
  checkTransport,
  failOnParseError,
  readJsonBody,
  resolvePolicy,
} from './pipeline/steps.ts';
import { WebhookStore } from '@svc/webhooks';
import { createQuotaWarning } from './ratelimit/quota-warning.ts';
import { createAdmit } from './ratelimit/admit.ts';
import { createRateLimiter } from './ratelimit/rate-limiter.ts';
import { buildOpenApi } from './rest/openapi.ts';
import { callTool, prepareRestCall } from './rest/steps.ts';
import { LastUsedRecorder } from './auth/last-used.ts';
import { gatewayRoutes } from './routes.ts';
import { createTools } from './tools/index.ts';
import { challenge } from './http/challenge.ts';
import { ToolRegistry } from './tools/registry.ts';

export interface GatewayDeps {
  config: Config;
  redis: Redis;
  /** The knowledge tools' connection (documents and index loads carry megabytes); `redis` when absent. */
  knowledgeRedis?: Redis;
  accounts: Accounts;
  logger: Logger;
  oauth: OAuthTokenVerifier | null;
  version?: string;
  /** The clock of expiry checks, the resolution cache and the rate-limit windows (tests pass their own). */
  now?: () => number;
  /** Outgoing email (access-request notices); from config.email unless a test gives another. */
  mailer?: Mailer;
  /** True while the process drains after SIGTERM: /readyz answers 503 (docs/operations.md "Rolling restarts"). */
  draining?: () => boolean;
  /** DNS TXT lookups of single sign-on's domain proofs; node:dns/promises unless a test gives its own. */
  resolveTxt?: ResolveTxt;
  /** OpenTelemetry tracing (docs/operations.md "Traces"); off when absent. */
  tracing?: Tracing;
}

/** tools/list and server/discover may be kept this long by a client (MCP 2026-07-28 "Caching"). */
const LIST_TTL_MS = 60_000;

export function createGateway(deps: GatewayDeps) {
  const { config, logger } = deps;
  const trustProxy = trustFunction(config.trustProxy);
  const now = deps.now ?? Date.now;
  const metrics = createMetrics();
  countCommands(deps.redis, metrics.countCommand);
  const cache = new ResolutionCache(config.authCacheTtlMs, now);
  const lastUsed = new LastUsedRecorder(deps.accounts, logger);
  const resolve = createResolver({ accounts: deps.accounts, oauth: deps.oauth, legacyCredentials: config.legacyCredentials, now });
  const authenticate = createAuthenticate({
    resolve,
    cache,
    pepper: config.keyPepper,
    onCache: metrics.countCacheLookup,
    now,
  });
  const record = (caller: ResolvedCaller) => {
    if (caller.keyHash) lastUsed.record(caller.keyHash);
    return caller;
  };
  const authenticateAndRecord: typeof authenticate = (headers, target) => {
    const caller = authenticate(headers, target);
    return caller instanceof Promise ? caller.then(record) : record(caller);
  };
  const tracer = deps.tracing?.tracer ?? null;
  const limiter = createRateLimiter(deps.redis, { profile: config.rateLimitProfile, scale: config.rateLimitScale, now, tracer });
  const admitFn = createAdmit({
    limiter,
    logger,
    onRejected: (reason) => metrics.rejected.inc({ reason }),
    onFairUseExceeded: (plan) => metrics.fairUse.inc({ plan }),
    onQuotaThreshold: createQuotaWarning({ redis: deps.redis, accounts: deps.accounts, logger, now }),
    now,
  });
  const embedder = config.embeddings ? createEmbedder(config.embeddings) : undefined;
  const management = createManagement(deps.accounts, {
    redis: deps.redis,
    now,
    mailer: deps.mailer ?? createMailer(config.email),
    authUrl: config.authUrl,
    baseUrl: config.baseUrl,
    onNoticeError: (err) => logger.warn('email notice not sent', { err }),
    // The same store and sealing key (COOKIE_KEYS, read by both services through @svc/config) as
    // the auth-service's pages; no discovery check here: the gateway makes no outbound requests
    // (docs/management.md "Single sign-on").
    sso: ssoSettings({
      accounts: deps.accounts,
      store: createSsoStore(deps.redis, config.cookieKeys),
      resolveTxt: deps.resolveTxt ?? defaultResolveTxt,
      now,
    }),
    // The gateway manages endpoints but never delivers: the worker runs in the auth-service (docs/webhooks.md).
    webhooks: new WebhookStore(deps.redis, { pepper: config.keyPepper, previousPepper: config.previousKeyPepper }, now),
  });
  const tools = createTools({
    redis: deps.knowledgeRedis ?? deps.redis,
    accounts: deps.accounts,
    logger,
    onAccessRequested: (request) => management.accessRequested(request),
    ...(embedder ? { embedder } : {}),
  });
  const registry = new ToolRegistry(tools);
  const origins = createOriginPolicy({
    baseUrl: config.baseUrl,
    authUrl: config.authUrl,
    extra: config.allowedOrigins,
    production: config.nodeEnv === 'production',
  });
  const callDeps = { logger, onCall: metrics.countToolCall, tracer };
  const version = deps.version ?? '0.1.0';
  const methods: MethodTable = {
    modern: new Map([
      ['server/discover', serverDiscover()],
      ['tools/list', toolsList({ registry })],
      ['tools/call', toolsCall(callDeps)],
    ]),
    legacy: new Map([
      ['initialize', initialize({ version })],
      ['ping', ping()],
      ['tools/list', toolsList({ registry })],
      ['tools/call', toolsCall(callDeps)],
    ]),
  };
  const runDeps = {
    logger,
    tracer,
    challenge: (target: Target, err: SvcError) => challenge(config.baseUrl, target, err),
    claimLeftProof: (proof: Parameters<typeof claimProof>[1]) => claimProof(deps.redis, proof),
  };
  const dpop = createDpopBinding({ baseUrl: config.baseUrl, now });
  // Routes without a rate-limit call claim a DPoP proof's jti at once; the MCP and REST tool
  // routes fold it into their one rate-limit call (docs/auth-service.md "DPoP").
  const auth = authenticateStep(authenticateAndRecord, { dpop, claim: deps.redis });
  const authThenCharge = authenticateStep(authenticateAndRecord, { dpop, claim: 'admit' });
  const charge = admit(admitFn, deps.redis);
  const body = readJsonBody(config.maxBodyBytes);
  const bodyOrEmpty = readJsonBody(config.maxBodyBytes, { emptyIs: {} });
  const transport = checkTransport(origins.allowed);
  let openApiDoc: unknown;
  const { resources, notFound } = gatewayRoutes({
    run: runDeps,
    accounts: deps.accounts,
    redis: deps.redis,
    management,
    metrics,
    now,
    baseUrl: config.baseUrl,
    authUrl: config.authUrl,
    mcp: [
      transport,
      body,
      authThenCharge,
      parseEnvelope,
      selectRevision,
      resolveMethod(methods),
      resolvePolicy,
      prepareToolCall(registry, config.legacyCredentials),
      charge,
      acceptNotification,
      dispatch(methods, (ex) => toolCaller(ex.caller!, ex.surface, ex.req.headers, { source: ex.source, requestId: ex.requestId }), {
        serverInfo: { ...SERVER_INFO, version },
        listTtlMs: LIST_TTL_MS,
      }),
    ],
    restTool: [
      transport,
      bodyOrEmpty,
      authThenCharge,
      failOnParseError,
      resolvePolicy,
      prepareRestCall(registry, config.legacyCredentials, (ex) => ex.params['tool'] ?? ''),
      charge,
      callTool(runTool(callDeps)),
    ],
    checkOrigin: checkOriginOnly(origins.allowed),
    authenticate: auth,
    admit: charge,
    readBody: body,
    readBodyOrEmpty: bodyOrEmpty,
    openApi: () => (openApiDoc ??= buildOpenApi(tools, { baseUrl: config.baseUrl })),
    cacheSize: () => cache.size,
    draining: deps.draining ?? (() => false),
  });
  const match = createRouter(resources, notFound);

  const hsts = strictTransportSecurity(config.baseUrl);
  function handler(req: IncomingMessage, res: ServerResponse): void {
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
    const label = route.metric;
    route.run(ex).then(label ? () => metrics.countRequest(label, res.statusCode) : undefined, (err: unknown) => {
      // route() wrote every error a step threw; this one came from writing it: nothing more can be sent.
      logger.error('unhandled request failure', { err });
      res.destroy();
    });
  }

  return {
    handler,
    cache,
    metrics,
    registry,
    /** Starts the invalidation subscription (a dedicated connection) and the last-used flusher. */
    async start(subscriber: Redis) {
      await cache.subscribe(subscriber);
      lastUsed.start();
    },
    async stop() {
      await lastUsed.stop();
    },
  };
}

/** Counts every command the request path sends to Redis (the benchmark reads it: round trips per request). */
function countCommands(redis: Redis, onCommand: () => void): void {
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = ((...args: Parameters<Redis['sendCommand']>) => {
    onCommand();
    return send(...args);
  }) as Redis['sendCommand'];
}
