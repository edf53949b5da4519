/**
 * The gateway's routes: one table of resources (http/router.ts), every route one pipeline of named
 * steps run by route() (docs/gateway-pipeline.md). The hot path comes first in the table.
 */
import type { Accounts, Redis } from '@svc/accounts';
import { SvcError } from '@svc/errors';
import type { Management } from '@svc/management';
import type { RouteClass } from '@svc/telemetry';
import type { Resource } from './http/router.ts';
import type { Metrics } from './metrics.ts';
import type { Protocol, Step } from './pipeline/exchange.ts';
import { managementTarget, slugTarget } from './pipeline/path-steps.ts';
import { route, type Route, type RunDeps } from './pipeline/run.ts';
import { accountSteps } from './rest/account-steps.ts';
import {
  MANAGEMENT_ROUTES,
  managementActor,
  managementBucket,
  reportLeak,
  runManagement,
  validateManagementRequest,
} from './rest/management-steps.ts';
import {
  decodeParams,
  health,
  metricsText,
  methodNotAllowed,
  notFound,
  oauthElsewhere,
  openApiDocument,
  preflight,
  signingKeys,
  publicPreflight,
  readiness,
  resourceMetadata,
  SLUG,
} from './rest/public-steps.ts';
import { serverCardDocument, serverCardPreflight } from './rest/server-card.ts';

/** One route of the table: its pipeline and how the dispatcher frames the exchange. */
export interface GatewayRoute {
  run: Route;
  protocol: Protocol;
  /** Every answer carries the caller's CORS headers (origins.ts); the public documents set their own. */
  cors: boolean;
  /** The route label of svc_gateway_requests_total, for the routes counted there. */
  metric?: string;
  /** The route label of svc_http_request_duration_seconds: `metric`, `health` for the probes, else `other`. */
  timing: RouteClass;
}

/** The steps and parts the routes are composed of, built once by createGateway. */
export interface RouteParts {
  run: RunDeps;
  accounts: Accounts;
  redis: Redis;
  management: Management;
  metrics: Metrics;
  now: () => number;
  baseUrl: string;
  authUrl: string;
  /** The gateway's version, as initialize and server/discover report it (the Server Card's too). */
  version: string;
  /** The MCP route's steps after the path's: transport, body, authenticate, ..., dispatch. */
  mcp: readonly Step[];
  /** The REST tool route's steps after the path's. */
  restTool: readonly Step[];
  checkOrigin: Step;
  authenticate: Step;
  admit: Step;
  readBody: Step;
  readBodyOrEmpty: Step;
  openApi: () => unknown;
  /** The keys forwarded tokens are signed with (docs/upstream-servers.md "The forwarded token"). */
  jwks: () => Promise<unknown>;
  cacheSize: () => number;
  draining: () => boolean;
}

export function gatewayRoutes(p: RouteParts): { resources: Resource<GatewayRoute>[]; notFound: GatewayRoute } {
  const api = (name: string, steps: readonly Step[], metric?: 'rest' | 'management'): GatewayRoute => ({
    run: route(name, steps, p.run),
    protocol: 'rest',
    cors: true,
    ...(metric ? { metric } : {}),
    timing: metric ?? 'other',
  });
  const plain = (name: string, steps: readonly Step[]): GatewayRoute => ({
    run: route(name, steps, p.run),
    protocol: 'rest',
    cors: false,
    timing: 'other',
  });
  // The probes an orchestrator and a scraper call every few seconds: never traced (docs/operations.md "Traces").
  const probe = (name: string, steps: readonly Step[]): GatewayRoute => ({
    run: route(name, steps, { ...p.run, tracer: null }),
    protocol: 'rest',
    cors: false,
    timing: 'health',
  });
  const apiPreflight = api('preflight', [preflight]);
  const apiNotAllowed = (remedy: (path: string) => string) => (allow: string) =>
    api('method-not-allowed', [methodNotAllowed(allow, remedy)]);
  const account = accountSteps(p.accounts);
  const accountRoute = (method: string, path: string, name: string, steps: readonly Step[]): Resource<GatewayRoute> => ({
    path,
    methods: { [method]: api(name, [p.checkOrigin, ...steps], 'rest'), OPTIONS: apiPreflight },
    otherMethods: apiNotAllowed((sent) => `${sent} takes ${method}.`),
  });

  const mcp = (kind: 'project' | 'team'): Resource<GatewayRoute> => ({
    path: kind === 'team' ? '/mcp/team/{slug}' : '/mcp/{slug}',
    methods: {
      POST: { run: route('mcp', [slugTarget(kind), ...p.mcp], p.run), protocol: 'jsonrpc', cors: true, metric: 'mcp', timing: 'mcp' },
      OPTIONS: apiPreflight,
    },
    // Stateless Streamable HTTP: no SSE stream (GET) and no sessions to end (DELETE).
    otherMethods: (allow) => ({
      run: route('method-not-allowed', [mcpNotAllowed(allow)], p.run),
      protocol: 'jsonrpc',
      cors: true,
      timing: 'other',
    }),
  });
  const restTool = (kind: 'project' | 'team'): Resource<GatewayRoute> => ({
    path: `/api/v1/${kind === 'team' ? 'teams' : 'projects'}/{slug}/tools/{tool}`,
    methods: { POST: api('rest-tool', [slugTarget(kind), ...p.restTool], 'rest'), OPTIONS: apiPreflight },
  });

  // The management API: one route per operation of its table, one resource per path (docs/management.md "REST").
  const managementPaths = new Map<string, Record<string, GatewayRoute>>();
  for (const r of MANAGEMENT_ROUTES) {
    const steps = [
      managementTarget,
      p.checkOrigin,
      p.readBodyOrEmpty,
      p.authenticate,
      managementActor(p.accounts),
      managementBucket(p.redis, p.now),
      validateManagementRequest(r),
      runManagement(p.management, r),
    ];
    const methods = managementPaths.get(r.path) ?? {};
    methods[r.method] = api(`management ${r.name}`, steps, 'management');
    managementPaths.set(r.path, methods);
  }

  const resources: Resource<GatewayRoute>[] = [
    // A project's MCP path first: a team's has one segment more, so neither ever takes the other's requests.
    mcp('project'),
    mcp('team'),
    restTool('project'),
    restTool('team'),
    accountRoute('GET', '/api/v1/me', 'me', [p.authenticate, p.admit, account.me]),
    accountRoute('GET', '/api/v1/projects', 'projects', [p.authenticate, p.admit, account.projects]),
    // Never refused for a limit: a key must always be able to revoke itself.
    accountRoute('DELETE', '/api/v1/me/key', 'revoke-self', [p.authenticate, account.revokeSelf]),
    {
      path: '/api/v1/keys/report-leak',
      // No credential but the reported key itself, and never refused for a limit (docs/management.md).
      methods: { POST: api('report-leak', [p.checkOrigin, p.readBody, reportLeak(p.management)], 'management'), OPTIONS: apiPreflight },
      otherMethods: apiNotAllowed((sent) => `${sent} takes POST.`),
    },
    ...[...managementPaths].map(([path, methods]) => ({
      path,
      methods: { ...methods, OPTIONS: apiPreflight },
      otherMethods: apiNotAllowed((sent) => `${sent} takes ${Object.keys(methods).join(', ')}, OPTIONS.`),
    })),
    // Off the hot path. These paths match in either case, as they always have.
    { path: '/healthz', anyCase: true, methods: getAndHead(probe('health', [health])) },
    { path: '/readyz', anyCase: true, methods: getAndHead(probe('readiness', [readiness(p.redis, p.draining)])) },
    { path: '/metrics', anyCase: true, methods: getAndHead(probe('metrics', [metricsText(p.metrics, p.cacheSize)])) },
    {
      path: '/.well-known/oauth-protected-resource/mcp/{slug}',
      anyCase: true,
      methods: {
        ...getAndHead(plain('resource-metadata', [decodeParams, resourceMetadata(p.baseUrl, p.authUrl)])),
        OPTIONS: plain('resource-metadata-preflight', [decodeParams, publicPreflight]),
      },
      // A slug that does not decode is a 400 whatever the method, as it always was.
      otherMethods: () => plain('not-found', [decodeParams, notFound]),
    },
    ...serverCardRoutes(p, plain),
    { path: '/api/v1/openapi.json', anyCase: true, methods: getAndHead(plain('openapi', [openApiDocument(p.openApi)])) },
    { path: '/.well-known/jwks.json', methods: getAndHead(plain('jwks', [signingKeys(p.jwks)])) },
    { path: '/api/oauth/*', methods: {}, otherMethods: () => plain('oauth-elsewhere', [oauthElsewhere(p.authUrl)]) },
  ];
  return { resources, notFound: plain('not-found', [notFound]) };
}

/**
 * The Server Card (docs/server-card.md): every project's, templated, at /.well-known/mcp.json, and
 * one project's at the location SEP-2127 reserves, `<streamable-http-url>/server-card`.
 */
function serverCardRoutes(p: RouteParts, plain: (name: string, steps: readonly Step[]) => GatewayRoute): Resource<GatewayRoute>[] {
  const source = { baseUrl: p.baseUrl, authUrl: p.authUrl, version: p.version };
  const projectSlug = (params: Record<string, string>) => {
    const slug = params['slug'] ?? '';
    if (!SLUG.test(slug)) throw new SvcError('not_found', { message: `Not found: no MCP endpoint /mcp/${slug.slice(0, 80)}` });
    return slug;
  };
  const card = (name: string, steps: readonly Step[]) => ({
    ...getAndHead(plain(name, steps)),
    OPTIONS: plain(`${name}-preflight`, [serverCardPreflight]),
  });
  return [
    { path: '/.well-known/mcp.json', anyCase: true, methods: card('server-card', [serverCardDocument(source, () => null)]) },
    { path: '/mcp/{slug}/server-card', methods: card('project-server-card', [decodeParams, serverCardDocument(source, projectSlug)]) },
  ];
}

/** A GET route also answers HEAD (RFC 9110 §9.3.2), its body left out by node:http. */
function getAndHead(r: GatewayRoute): Record<string, GatewayRoute> {
  return { GET: r, HEAD: r };
}

function mcpNotAllowed(allow: string): Step {
  return function mcpNotAllowed() {
    throw new SvcError('method_not_allowed', {
      remedy: 'The MCP endpoint takes POST (Streamable HTTP, JSON responses); GET and DELETE are not offered.',
      headers: { Allow: allow },
    });
  };
}
