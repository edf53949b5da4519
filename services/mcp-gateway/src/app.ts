/**
 * createGateway(deps): the gateway as a plain node:http request handler. One router
 * (http/router.ts) finds the route of every request in one table (routes.ts), and the route's
 * pipeline answers it (docs/gateway-pipeline.md). No framework sits in front: Express's router and
 * body parser in front of the hot path cost about two thirds of the throughput (docs/benchmarks.md).
 */
import type { Accounts, Redis } from '@svc/accounts';
import { observeCommands } from '@svc/accounts';
import type { Config } from '@svc/config';
import type { SvcError } from '@svc/errors';
import type { Mailer } from '@svc/mail';
import type { ResolveTxt } from '@svc/sso';
import { createEmbedder } from '@svc/knowledge';
import { BUCKETS } from '@svc/limits';
import type { Logger } from '@svc/logger';
import type { Tracing } from '@svc/telemetry';
import type { Tracer } from '@opentelemetry/api';
import type { Target } from './auth/caller.ts';
import { claimProof } from './auth/dpop-binding.ts';
import type { OAuthTokenVerifier } from './auth/oauth-types.ts';
import { gatewayAuthentication } from './auth/gateway-authentication.ts';
import { requestHandler } from './request-handler.ts';
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
} from './pipeline/mcp-steps.ts';
import { SERVER_INFO } from './mcp/protocol.ts';
import { initialize } from './methods/initialize.ts';
import { ping } from './methods/ping.ts';
import { serverDiscover } from './methods/server-discover.ts';
import { runTool, toolsCall } from './methods/tools-call.ts';
import { approvalCanceller, approvalFollower, approvalHold, asToolResult } from './methods/approvals.ts';
import { tasksCancel } from './methods/tasks-cancel.ts';
import { tasksGet } from './methods/tasks-get.ts';
import type { MethodHandler } from './methods/types.ts';
import { toolsList } from './methods/tools-list.ts';
import { createMetrics } from './metrics.ts';
import { createOriginPolicy } from './origins.ts';
import { sharedSteps } from './pipeline/shared-steps.ts';
import { failOnParseError, resolvePolicy } from './pipeline/steps.ts';
import { gatewayAdmission } from './ratelimit/gateway-admission.ts';
import { createInFlightCap } from './methods/in-flight.ts';
import { buildOpenApi } from './rest/openapi.ts';
import { callTool, prepareRestCall } from './rest/steps.ts';
import { gatewayManagement } from './management-layer.ts';
import { gatewayRoutes } from './routes.ts';
import { createTools } from './tools/index.ts';
import { challenge } from './auth/challenge.ts';
import { denial } from './auth/denial.ts';
import { ToolRegistry } from './tools/registry.ts';
import { loadToolSet, mcpToolNeeded } from './upstreams/load-step.ts';
import { gatewayUpstreams } from './upstreams/tool-sets.ts';

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

/** The gateway: its authentication, admission, management and tools, wired into the routes' pipelines. */
export function createGateway(deps: GatewayDeps) {
  const { config, logger } = deps;
  const now = deps.now ?? Date.now;
  const metrics = createMetrics();
  countCommands(deps.redis, metrics.countCommand);
  // The request connection's commands; the knowledge tools' connection moves megabytes and is not timed.
  observeCommands(deps.redis, metrics.durations.command);
  const { cache, lastUsed, authenticate } = gatewayAuthentication({
    config,
    accounts: deps.accounts,
    oauth: deps.oauth,
    logger,
    onCache: metrics.countCacheLookup,
    now,
  });
  const tracer = deps.tracing?.tracer ?? null;
  // A project's upstream tools beside the built-in ones, each call forwarded (docs/upstream-servers.md).
  const upstreamSide = gatewayUpstreams({
    config,
    redis: deps.redis,
    accounts: deps.accounts,
    logger,
    now,
    observe: (status, seconds) => metrics.durations.outbound('upstream', status, seconds),
  });
  const management = gatewayManagement({ ...deps, now, upstreams: upstreamSide.upstreams });
  const { tools, registry, callDeps, follow } = builtInTools(deps, management, metrics, tracer);
  const toolSets = upstreamSide.toolSetsOver(registry);
  const origins = createOriginPolicy({
    baseUrl: config.baseUrl,
    authUrl: config.authUrl,
    extra: config.allowedOrigins,
    production: config.nodeEnv === 'production',
  });
  const version = deps.version ?? '0.1.0';
  const methods = methodTable(registry, callDeps, version, {
    get: tasksGet(follow),
    cancel: tasksCancel(approvalCanceller({ accounts: deps.accounts })),
  });
  const runDeps = {
    logger,
    tracer,
    challenge: (target: Target, err: SvcError) => challenge(config.baseUrl, target, err),
    denial: (err: SvcError) => denial(config.authUrl, err),
    claimLeftProof: (proof: Parameters<typeof claimProof>[1]) => claimProof(deps.redis, proof),
  };
  const admit = gatewayAdmission({ config, redis: deps.redis, accounts: deps.accounts, logger, metrics, tracer, now });
  const steps = sharedSteps({ config, redis: deps.redis, authenticate, admit, originAllowed: origins.allowed, now });
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
    version,
    mcp: [
      steps.checkTransport,
      steps.readBody,
      steps.authenticateThenCharge,
      parseEnvelope,
      selectRevision,
      resolveMethod(methods),
      resolvePolicy,
      loadToolSet(toolSets, mcpToolNeeded),
      prepareToolCall(registry, config.legacyCredentials),
      steps.admit,
      acceptNotification,
      dispatch(methods, (ex) => toolCaller(ex.caller!, ex.surface, ex.req.headers, { source: ex.source, requestId: ex.requestId }), {
        serverInfo: { ...SERVER_INFO, version },
        listTtlMs: LIST_TTL_MS,
      }),
    ],
    restTool: [
      steps.checkTransport,
      steps.readBodyOrEmpty,
      steps.authenticateThenCharge,
      failOnParseError,
      resolvePolicy,
      loadToolSet(toolSets, (ex) => ex.params['tool'] ?? ''),
      prepareRestCall(registry, config.legacyCredentials, (ex) => ex.params['tool'] ?? ''),
      steps.admit,
      callTool(runTool(callDeps)),
    ],
    // checkOrigin, authenticate, admit, readBody, readBodyOrEmpty: the other routes' shared steps.
    ...steps,
    openApi: () => (openApiDoc ??= buildOpenApi(tools, { baseUrl: config.baseUrl })),
    jwks: () => upstreamSide.upstreams.tokens.jwks(),
    cacheSize: () => cache.size,
    draining: deps.draining ?? (() => false),
  });
  const handler = requestHandler({ config, match: createRouter(resources, notFound), origins, metrics, logger });

  return {
    handler,
    cache,
    metrics,
    registry,
    /** Starts the invalidation subscription (a dedicated connection) and the last-used flusher. */
    async start(subscriber: Redis) {
      toolSets.follow(subscriber);
      await cache.subscribe(subscriber);
      lastUsed.start();
    },
    async stop() {
      await lastUsed.stop();
      await admit.release();
    },
  };
}

/**
 * The built-in tools and how a call of one runs: held when its row asks for an approval, and
 * svc_approval_status running an approved call with the tools registered here (docs/approvals.md).
 */
function builtInTools(
  deps: GatewayDeps,
  management: ReturnType<typeof gatewayManagement>,
  metrics: ReturnType<typeof createMetrics>,
  tracer: Tracer | null,
) {
  const { config, logger } = deps;
  const embedder = config.embeddings ? createEmbedder(config.embeddings) : undefined;
  let follow: ReturnType<typeof approvalFollower> | null = null;
  const tools = createTools({
    redis: deps.knowledgeRedis ?? deps.redis,
    accounts: deps.accounts,
    logger,
    onAccessRequested: (request) => management.accessRequested(request),
    collectApproval: async (id, caller, beside) => asToolResult(await follow!(id, caller, beside)),
    ...(embedder ? { embedder } : {}),
  });
  const registry = new ToolRegistry(tools);
  const plain = { logger, onCall: metrics.countToolCall, tracer };
  follow = approvalFollower({ accounts: deps.accounts, logger, registry, run: runTool(plain) });
  // One cap for both revisions' tools/call: a credential's calls in progress, counted once;
  // RATE_LIMIT_SCALE multiplies it as it does every limit (README "Configuration").
  const inFlight = createInFlightCap({ concurrent: BUCKETS.toolCallsInFlight.concurrent * config.rateLimitScale });
  return { tools, registry, follow, callDeps: { ...plain, hold: approvalHold({ accounts: deps.accounts }), inFlight } };
}

/** The JSON-RPC methods of each protocol era (docs/mcp-revisions.md). */
function methodTable(
  registry: ToolRegistry,
  callDeps: Parameters<typeof toolsCall>[0],
  version: string,
  tasks: { get: MethodHandler; cancel: MethodHandler },
): MethodTable {
  return {
    modern: new Map([
      ['server/discover', serverDiscover()],
      ['tools/list', toolsList({ registry })],
      ['tools/call', toolsCall(callDeps)],
      // MCP Tasks (SEP-2663): a held call followed as a task (docs/approvals.md).
      ['tasks/get', tasks.get],
      ['tasks/cancel', tasks.cancel],
    ]),
    legacy: new Map([
      ['initialize', initialize({ version })],
      ['ping', ping()],
      ['tools/list', toolsList({ registry })],
      ['tools/call', toolsCall(callDeps)],
    ]),
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
