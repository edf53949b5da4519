/**
 * createGateway(deps): the gateway as a plain node:http request handler. The hot path (POST to
 * the MCP and REST tool endpoints) is served on node:http directly; everything else goes to the
 * Express app. Measured: Express's router and body parser in front of the hot path cost about
 * two thirds of the throughput (docs/benchmarks.md).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Accounts, Redis } from '@svc/accounts';
import { clientAddress, strictTransportSecurity, trustFunction, type Config } from '@svc/config';
import { SvcError } from '@svc/errors';
import { createMailer, type Mailer } from '@svc/mail';
import { createManagement } from '@svc/management';
import { createEmbedder } from '@svc/knowledge';
import type { Logger } from '@svc/logger';
import { createAuthenticate } from './auth/authenticate.ts';
import type { ResolvedCaller, Target } from './auth/caller.ts';
import type { OAuthTokenVerifier } from './auth/oauth-types.ts';
import { ResolutionCache } from './auth/resolution-cache.ts';
import { createResolver } from './auth/resolve-credential.ts';
import { createExpressApp } from './express-app.ts';
import { sendEmpty, sendRestError, sendRpcError } from './http/respond.ts';
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
import { createOriginPolicy, preflightHeaders } from './origins.ts';
import { newExchange, type Protocol } from './pipeline/exchange.ts';
import { route, type Route } from './pipeline/run.ts';
import {
  admit,
  authenticate as authenticateStep,
  checkOriginOnly,
  checkTransport,
  failOnParseError,
  readJsonBody,
  resolvePolicy,
} from './pipeline/steps.ts';
import { createAdmit } from './ratelimit/admit.ts';
import { createRateLimiter } from './ratelimit/rate-limiter.ts';
import { accountSteps } from './rest/account-steps.ts';
import {
  MANAGEMENT_ROUTES,
  managementActor,
  managementBucket,
  matchManagementRoute,
  reportLeak,
  runManagement,
  validateManagementRequest,
  type ManagementRoute,
} from './rest/management-steps.ts';
import { buildOpenApi } from './rest/openapi.ts';
import { callTool, prepareRestCall } from './rest/steps.ts';
import { LastUsedRecorder } from './auth/last-used.ts';
import { createTools } from './tools/index.ts';
import { ToolRegistry } from './tools/registry.ts';

export interface GatewayDeps {
  config: Config;
  redis: Redis;
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
}

const MCP_ROUTE = /^\/mcp\/(?:(team)\/)?([^/?#]+)\/?(?:\?.*)?$/;
const REST_ROUTE = /^\/api\/v1\/(projects|teams)\/([^/?#]+)\/tools\/([^/?#]+)\/?(?:\?.*)?$/;
/** The account routes: path -> the one method each takes. */
const ACCOUNT_ROUTES: Record<string, { method: string; route: 'me' | 'projects' | 'revokeSelf' }> = {
  '/api/v1/me': { method: 'GET', route: 'me' },
  '/api/v1/projects': { method: 'GET', route: 'projects' },
  '/api/v1/me/key': { method: 'DELETE', route: 'revokeSelf' },
};
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
  const limiter = createRateLimiter(deps.redis, { profile: config.rateLimitProfile, scale: config.rateLimitScale, now });
  const admitFn = createAdmit({
    limiter,
    logger,
    onRejected: (reason) => metrics.rejected.inc({ reason }),
    onFairUseExceeded: (plan) => metrics.fairUse.inc({ plan }),
    now,
  });
  const embedder = config.embeddings ? createEmbedder(config.embeddings) : undefined;
  const management = createManagement(deps.accounts, {
    redis: deps.redis,
    now,
    mailer: deps.mailer ?? createMailer(config.email),
    authUrl: config.authUrl,
    onNoticeError: (err) => logger.warn('email notice not sent', { err }),
  });
  const tools = createTools({
    redis: deps.redis,
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
  const callDeps = { logger, onCall: metrics.countToolCall };
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
  const account = accountSteps(deps.accounts);
  const runDeps = { logger, challenge: (target: Target, err: SvcError) => challenge(config.baseUrl, target, err) };
  const transport = checkTransport(origins.allowed);
  const auth = authenticateStep(authenticateAndRecord);
  const charge = admit(admitFn);
  const body = readJsonBody(config.maxBodyBytes);
  // The gateway's routes, each one pipeline of named steps (docs/gateway-pipeline.md).
  const routes = {
    mcp: route(
      'mcp',
      [
        transport,
        body,
        auth,
        parseEnvelope,
        selectRevision,
        resolveMethod(methods),
        resolvePolicy,
        prepareToolCall(registry, config.legacyCredentials),
        charge,
        acceptNotification,
        dispatch(methods, (ex) => toolCaller(ex.caller!, ex.surface, ex.req.headers), {
          serverInfo: { ...SERVER_INFO, version },
          listTtlMs: LIST_TTL_MS,
        }),
      ],
      runDeps,
    ),
    restTool: route(
      'rest-tool',
      [
        transport,
        readJsonBody(config.maxBodyBytes, { emptyIs: {} }),
        auth,
        failOnParseError,
        resolvePolicy,
        prepareRestCall(registry, config.legacyCredentials, (ex) => ex.params['tool'] ?? ''),
        charge,
        callTool(runTool(callDeps)),
      ],
      runDeps,
    ),
    me: route('me', [checkOriginOnly(origins.allowed), auth, charge, account.me], runDeps),
    projects: route('projects', [checkOriginOnly(origins.allowed), auth, charge, account.projects], runDeps),
    // Never refused for a limit: a key must always be able to revoke itself.
    revokeSelf: route('revoke-self', [checkOriginOnly(origins.allowed), auth, account.revokeSelf], runDeps),
    // No credential but the reported key itself, and never refused for a limit (docs/management.md).
    reportLeak: route(
      'report-leak',
      [checkOriginOnly(origins.allowed), readJsonBody(config.maxBodyBytes), reportLeak(management)],
      runDeps,
    ),
  } satisfies Record<string, Route>;
  // The management API: one route per operation of the table (docs/management.md "REST").
  const managementRoutes = new Map<ManagementRoute, Route>(
    MANAGEMENT_ROUTES.map((r) => [
      r,
      route(
        `management ${r.name}`,
        [
          checkOriginOnly(origins.allowed),
          readJsonBody(config.maxBodyBytes, { emptyIs: {} }),
          auth,
          managementActor(deps.accounts),
          managementBucket(deps.redis, now),
          validateManagementRequest(r),
          runManagement(management, r),
        ],
        runDeps,
      ),
    ]),
  );

  function serve(
    name: keyof typeof routes,
    req: IncomingMessage,
    res: ServerResponse,
    target: Target,
    protocol: Protocol,
    params: Record<string, string> = {},
  ): Promise<void> {
    const ex = newExchange(req, res, {
      requestId: randomUUID(),
      source: clientAddress(req, trustProxy),
      target,
      protocol,
      headers: origins.corsHeaders(req),
      params,
    });
    return routes[name](ex);
  }

  function serveManagement(r: ManagementRoute, req: IncomingMessage, res: ServerResponse, params: Record<string, string>): Promise<void> {
    // An OAuth token is bound to one project's MCP resource (RFC 8707): on a project's route it is
    // checked against that project; every other credential speaks for itself (docs/management.md).
    const oauthOnProject = params['project'] !== undefined && /^Bearer\s+svc_at_/i.test(req.headers.authorization ?? '');
    const ex = newExchange(req, res, {
      requestId: randomUUID(),
      source: clientAddress(req, trustProxy),
      target: oauthOnProject ? { kind: 'project', slug: params['project']! } : { kind: 'account', slug: '' },
      protocol: 'rest',
      headers: origins.corsHeaders(req),
      params,
    });
    return managementRoutes.get(r)!(ex);
  }
  let openApiDoc: unknown;
  const app = createExpressApp({
    redis: deps.redis,
    logger,
    metrics,
    baseUrl: config.baseUrl,
    authUrl: config.authUrl,
    openApi: () => (openApiDoc ??= buildOpenApi(tools, { baseUrl: config.baseUrl })),
    cacheSize: () => cache.size,
    draining: deps.draining ?? (() => false),
  });

  const hsts = strictTransportSecurity(config.baseUrl);
  function handler(req: IncomingMessage, res: ServerResponse): void {
    // RFC 6797: an https deployment tells browsers to keep to https, on every answer.
    if (hsts) res.setHeader('Strict-Transport-Security', hsts);
    const url = req.url ?? '/';
    const preflight = () => sendEmpty(res, 204, { ...origins.corsHeaders(req), ...preflightHeaders(req) });
    const mcpMatch = url.startsWith('/mcp/') ? MCP_ROUTE.exec(url) : null;
    if (mcpMatch) {
      const target: Target = { kind: mcpMatch[1] ? 'team' : 'project', slug: decodeSlug(mcpMatch[2]) };
      if (req.method === 'POST') return void track(res, 'mcp', serve('mcp', req, res, target, 'jsonrpc'));
      if (req.method === 'OPTIONS') return preflight();
      // Stateless Streamable HTTP: no SSE stream (GET) and no sessions to end (DELETE).
      const err = new SvcError('method_not_allowed', {
        remedy: 'The MCP endpoint takes POST (Streamable HTTP, JSON responses); GET and DELETE are not offered.',
      });
      return void sendRpcError(res, err, null, { Allow: 'POST, OPTIONS', ...origins.corsHeaders(req) });
    }
    const restMatch = url.startsWith('/api/v1/') ? REST_ROUTE.exec(url) : null;
    if (restMatch) {
      const target: Target = { kind: restMatch[1] === 'teams' ? 'team' : 'project', slug: decodeSlug(restMatch[2]) };
      if (req.method === 'POST')
        return void track(res, 'rest', serve('restTool', req, res, target, 'rest', { tool: decodeSlug(restMatch[3]) }));
      if (req.method === 'OPTIONS') return preflight();
    }
    const path = url.startsWith('/api/v1/') ? url.replace(/[?#].*$/, '').replace(/\/$/, '') : '';
    const accountRoute = path ? ACCOUNT_ROUTES[path] : undefined;
    if (accountRoute) {
      if (req.method === 'OPTIONS') return preflight();
      if (req.method !== accountRoute.method) {
        const err = new SvcError('method_not_allowed', { remedy: `${path} takes ${accountRoute.method}.` });
        return void sendRestError(res, err, { Allow: `${accountRoute.method}, OPTIONS`, ...origins.corsHeaders(req) });
      }
      return void track(res, 'rest', serve(accountRoute.route, req, res, { kind: 'account', slug: '' }, 'rest'));
    }
    if (path === '/api/v1/keys/report-leak') {
      if (req.method === 'OPTIONS') return preflight();
      if (req.method !== 'POST') {
        const err = new SvcError('method_not_allowed', { remedy: `${path} takes POST.` });
        return void sendRestError(res, err, { Allow: 'POST, OPTIONS', ...origins.corsHeaders(req) });
      }
      return void track(res, 'management', serve('reportLeak', req, res, { kind: 'account', slug: '' }, 'rest'));
    }
    const managementMatch = path ? matchManagementRoute(req.method ?? 'GET', path) : null;
    if (managementMatch) {
      if (req.method === 'OPTIONS') return preflight();
      if ('allow' in managementMatch) {
        const err = new SvcError('method_not_allowed', { remedy: `${path} takes ${managementMatch.allow}.` });
        return void sendRestError(res, err, { Allow: managementMatch.allow, ...origins.corsHeaders(req) });
      }
      return void track(res, 'management', serveManagement(managementMatch.route, req, res, managementMatch.params));
    }
    app(req, res);
  }

  function track(res: ServerResponse, route: string, done: Promise<void>): void {
    done.then(
      () => metrics.countRequest(route, res.statusCode),
      (err: unknown) => {
        logger.error('unhandled request failure', { err });
        if (!res.headersSent) sendRpcError(res, new SvcError('internal_error'), null);
      },
    );
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

function decodeSlug(s: string | undefined): string {
  try {
    return decodeURIComponent(s ?? '');
  } catch {
    return s ?? '';
  }
}

/**
 * RFC 6750 §3 / RFC 9728 §5.1: the 401 challenge points at the resource's metadata and names the
 * scope to ask for (MCP 2026-07-28 authorization: `scope`, never offline_access). Every route's 401
 * carries the same challenge; account routes have no resource metadata of their own.
 */
function challenge(baseUrl: string, target: Target, err: SvcError): string {
  const metadata = `resource_metadata="${baseUrl}/.well-known/oauth-protected-resource/mcp/${encodeURIComponent(target.slug)}"`;
  // RFC 6750 §3.1: the scope the call needs, so the client can authorize again with it.
  if (err.code === 'insufficient_scope') return `Bearer error="insufficient_scope", scope="${String(err.data['scope'])}", ${metadata}`;
  const parts = ['Bearer realm="svc"'];
  if (target.kind === 'project') {
    parts.push(metadata);
    parts.push('scope="mcp"');
  }
  if (err.code === 'invalid_token' || err.code === 'invalid_api_key')
    parts.push(`error="invalid_token", error_description="${err.message}"`);
  return parts.join(', ');
}
