/**
 * createGateway(deps): the gateway as a plain node:http request handler. The hot path (POST to
 * the MCP and REST tool endpoints) is served on node:http directly; everything else goes to the
 * Express app. Measured: Express's router and body parser in front of the hot path cost about
 * two thirds of the throughput (docs/benchmarks.md).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Accounts, Redis } from '@svc/accounts';
import type { Config } from '@svc/config';
import { SvcError } from '@svc/errors';
import { createEmbedder } from '@svc/knowledge';
import type { Logger } from '@svc/logger';
import { createAuthenticate } from './auth/authenticate.ts';
import type { Target } from './auth/caller.ts';
import type { OAuthTokenVerifier } from './auth/oauth-types.ts';
import { ResolutionCache } from './auth/resolution-cache.ts';
import { createResolver } from './auth/resolve-credential.ts';
import { createExpressApp } from './express-app.ts';
import { sendEmpty, sendRestError, sendRpcError } from './http/respond.ts';
import { createMcpHandler } from './mcp/handle-mcp.ts';
import { initialize } from './methods/initialize.ts';
import { ping } from './methods/ping.ts';
import { toolsCall } from './methods/tools-call.ts';
import { toolsList } from './methods/tools-list.ts';
import { createMetrics } from './metrics.ts';
import { createOriginPolicy, PREFLIGHT_HEADERS } from './origins.ts';
import { createAdmit } from './ratelimit/admit.ts';
import { createRateLimiter } from './ratelimit/rate-limiter.ts';
import { buildOpenApi } from './rest/openapi.ts';
import { createRestHandler } from './rest/handle-rest.ts';
import { createAccountRoutes } from './rest/account-routes.ts';
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
}

const MCP_ROUTE = /^\/mcp\/(?:(team)\/)?([^/?#]+)\/?(?:\?.*)?$/;
/** The account routes of rest/account-routes.ts: path -> the one method it takes. */
const ACCOUNT_ROUTES: Record<string, { method: string; handler: 'me' | 'projects' | 'revokeSelf' }> = {
  '/api/v1/me': { method: 'GET', handler: 'me' },
  '/api/v1/projects': { method: 'GET', handler: 'projects' },
  '/api/v1/me/key': { method: 'DELETE', handler: 'revokeSelf' },
};
const REST_ROUTE = /^\/api\/v1\/(projects|teams)\/([^/?#]+)\/tools\/([^/?#]+)\/?(?:\?.*)?$/;

export function createGateway(deps: GatewayDeps) {
  const { config, logger } = deps;
  const now = deps.now ?? Date.now;
  const metrics = createMetrics();
  countCommands(deps.redis, () => metrics.redisCommands.inc());
  const cache = new ResolutionCache(config.authCacheTtlMs, now);
  const [cacheHit, cacheMiss] = [metrics.authCache.labels('hit'), metrics.authCache.labels('miss')];
  const lastUsed = new LastUsedRecorder(deps.accounts, logger);
  const resolve = createResolver({ accounts: deps.accounts, oauth: deps.oauth, legacyCredentials: config.legacyCredentials, now });
  const authenticate = createAuthenticate({
    resolve,
    cache,
    pepper: config.keyPepper,
    onCache: (hit) => (hit ? cacheHit : cacheMiss).inc(),
    now,
  });
  const authenticateAndRecord: typeof authenticate = async (headers, target) => {
    const caller = await authenticate(headers, target);
    if (caller.keyHash) lastUsed.record(caller.keyHash);
    return caller;
  };
  const limiter = createRateLimiter(deps.redis, { profile: config.rateLimitProfile, scale: config.rateLimitScale, now });
  const admit = createAdmit({
    limiter,
    logger,
    onRejected: (reason) => metrics.rejected.inc({ reason }),
    onFairUseExceeded: (workspace) => metrics.fairUse.inc({ workspace }),
    now,
  });
  const embedder = config.embeddings ? createEmbedder(config.embeddings) : undefined;
  const tools = createTools({ redis: deps.redis, accounts: deps.accounts, logger, ...(embedder ? { embedder } : {}) });
  const registry = new ToolRegistry(tools);
  const origins = createOriginPolicy({
    baseUrl: config.baseUrl,
    authUrl: config.authUrl,
    extra: config.allowedOrigins,
    production: config.nodeEnv === 'production',
  });
  const call = toolsCall({ logger, onCall: (tool, outcome) => metrics.toolCalls.inc({ tool, outcome }) });
  const common = {
    authenticate: authenticateAndRecord,
    admit,
    registry,
    logger,
    maxBodyBytes: config.maxBodyBytes,
    legacyNames: config.legacyCredentials,
    originAllowed: origins.allowed,
    corsHeaders: origins.corsHeaders,
  };
  const mcp = createMcpHandler({
    ...common,
    methods: {
      initialize: initialize({ version: deps.version ?? '0.1.0' }),
      ping: ping(),
      'tools/list': toolsList({ registry }),
      'tools/call': call,
    },
    challenge: (target, err) => challenge(config.baseUrl, target, err),
  });
  const rest = createRestHandler({ ...common, toolsCall: call });
  const accountRoutes = createAccountRoutes({ accounts: deps.accounts, admit, corsHeaders: origins.corsHeaders });
  let openApiDoc: unknown;
  const app = createExpressApp({
    redis: deps.redis,
    logger,
    metrics,
    baseUrl: config.baseUrl,
    authUrl: config.authUrl,
    openApi: () => (openApiDoc ??= buildOpenApi(tools, { baseUrl: config.baseUrl })),
    cacheSize: () => cache.size,
  });

  function handler(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? '/';
    const mcpMatch = url.startsWith('/mcp/') ? MCP_ROUTE.exec(url) : null;
    if (mcpMatch) {
      const target: Target = { kind: mcpMatch[1] ? 'team' : 'project', slug: decodeSlug(mcpMatch[2]) };
      if (req.method === 'POST') return void track(res, 'mcp', mcp(req, res, target, randomUUID()));
      if (req.method === 'OPTIONS') return sendEmpty(res, 204, { ...origins.corsHeaders(req), ...PREFLIGHT_HEADERS });
      // Stateless Streamable HTTP: no SSE stream (GET) and no sessions to end (DELETE).
      const err = new SvcError('method_not_allowed', {
        remedy: 'The MCP endpoint takes POST (Streamable HTTP, JSON responses); GET and DELETE are not offered.',
      });
      return void sendRpcError(res, err, null, { Allow: 'POST, OPTIONS', ...origins.corsHeaders(req) });
    }
    const restMatch = url.startsWith('/api/v1/') ? REST_ROUTE.exec(url) : null;
    if (restMatch) {
      const target: Target = { kind: restMatch[1] === 'teams' ? 'team' : 'project', slug: decodeSlug(restMatch[2]) };
      if (req.method === 'POST') return void track(res, 'rest', rest(req, res, target, decodeSlug(restMatch[3]), randomUUID()));
      if (req.method === 'OPTIONS') return sendEmpty(res, 204, { ...origins.corsHeaders(req), ...PREFLIGHT_HEADERS });
    }
    const path = url.startsWith('/api/v1/') ? url.replace(/[?#].*$/, '').replace(/\/$/, '') : '';
    const account = path ? ACCOUNT_ROUTES[path] : undefined;
    if (account) {
      if (req.method === 'OPTIONS') return sendEmpty(res, 204, { ...origins.corsHeaders(req), ...PREFLIGHT_HEADERS });
      if (req.method !== account.method) {
        const err = new SvcError('method_not_allowed', { remedy: `${path} takes ${account.method}.` });
        return void sendRestError(res, err, { Allow: `${account.method}, OPTIONS`, ...origins.corsHeaders(req) });
      }
      return void track(res, 'rest', accountRoutes[account.handler](req, res));
    }
    app(req, res);
  }

  function track(res: ServerResponse, route: string, done: Promise<void>): void {
    done.then(
      () => metrics.requests.inc({ route, status: res.statusCode }),
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

/** RFC 6750 §3 / RFC 9728 §5.1: the 401 challenge points at the resource's metadata. */
function challenge(baseUrl: string, target: Target, err: SvcError): string {
  const parts = ['Bearer realm="svc"'];
  if (target.kind === 'project')
    parts.push(`resource_metadata="${baseUrl}/.well-known/oauth-protected-resource/mcp/${encodeURIComponent(target.slug)}"`);
  if (err.code === 'invalid_token' || err.code === 'invalid_api_key')
    parts.push(`error="invalid_token", error_description="${err.message}"`);
  return parts.join(', ');
}
