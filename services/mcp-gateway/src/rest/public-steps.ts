/**
 * The routes off the hot path that need no credential (docs/gateway-pipeline.md "One router"):
 * health, readiness, metrics, the RFC 9728 protected resource metadata, the OpenAPI document, and
 * the steps that answer what no route takes: the preflight, 404 and 405.
 */
import { READY_TIMEOUT_MS, pingWithin, type Redis } from '@svc/accounts';
import { DPOP_SIGNING_ALGS } from '@svc/credentials';
import { SvcError } from '@svc/errors';
import { MCP_SCOPES } from '@svc/policy';
import type { Metrics } from '../metrics.ts';
import { preflightHeaders } from '../origins.ts';
import type { Step } from '../pipeline/exchange.ts';
import { notFoundError } from '../pipeline/path-steps.ts';
import { respond, respondEmpty, respondText } from '../pipeline/run.ts';

/** Slugs as the account model allows them; anything else is a 404 here. */
export const SLUG = /^[a-z0-9][a-z0-9-]{1,62}$/;

/** The CORS headers of the public documents: any origin may read them. */
const PUBLIC_CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, OPTIONS',
  'Access-Control-Allow-Headers': 'MCP-Protocol-Version, Content-Type',
};

/** GET /healthz: the process answers. */
export const health: Step = function health(ex) {
  respond(ex, { status: 'ok' });
};

/**
 * GET /readyz: Redis answers within READY_TIMEOUT_MS and the process is not draining
 * (docs/operations.md "Rolling restarts"). Its 503 is the probe's answer, not a refusal.
 */
export function readiness(redis: Redis, draining: () => boolean): Step {
  return async function readiness(ex) {
    if (draining()) return respond(ex, { status: 'draining' }, 503);
    // Truthful within a second, even when Redis stalls without closing the connection (paused).
    if (await pingWithin(redis, READY_TIMEOUT_MS)) respond(ex, { status: 'ready', redis: 'ok' });
    else respond(ex, { status: 'unavailable', redis: 'unreachable' }, 503);
  };
}

/** GET /metrics: the Prometheus text. */
export function metricsText(metrics: Metrics, cacheSize: () => number): Step {
  return async function metricsText(ex) {
    metrics.cacheSize.set(cacheSize());
    respondText(ex, await metrics.registry.metrics(), 200, metrics.registry.contentType);
  };
}

/**
 * RFC 9728 §3.1: the metadata of /mcp/<slug> lives at the path-inserted well-known URL. It is
 * answered for any well-formed slug, so it reveals nothing about which projects exist.
 */
export function resourceMetadata(baseUrl: string, authUrl: string): Step {
  return function resourceMetadata(ex) {
    const slug = ex.params['slug'] ?? '';
    if (!SLUG.test(slug)) throw new SvcError('not_found', { message: `Not found: no MCP endpoint /mcp/${slug.slice(0, 80)}` });
    ex.headers = { ...ex.headers, ...PUBLIC_CORS, 'Cache-Control': 'public, max-age=300' };
    respond(ex, {
      resource: `${baseUrl}/mcp/${slug}`,
      authorization_servers: [authUrl],
      // docs/contract.md "OAuth scopes and refresh": the four scopes, never offline_access.
      scopes_supported: [...MCP_SCOPES],
      bearer_methods_supported: ['header'],
      // RFC 9449 §5.2 / RFC 9728 §2: DPoP-bound tokens are accepted (and their proofs checked), not required.
      dpop_signing_alg_values_supported: [...DPOP_SIGNING_ALGS],
      dpop_bound_access_tokens_required: false,
      resource_name: `svc project ${slug}`,
      resource_documentation: `${baseUrl}/api/v1/openapi.json`,
    });
  };
}

/** GET /api/v1/openapi.json: the REST API's OpenAPI document, readable from any origin. */
export function openApiDocument(document: () => unknown): Step {
  return function openApiDocument(ex) {
    ex.headers = { ...ex.headers, ...PUBLIC_CORS };
    respond(ex, document());
  };
}

/** The public keys of forwarded tokens (docs/upstream-servers.md): any origin may read them; a verifier caches them. */
export function signingKeys(jwks: () => Promise<unknown>): Step {
  return async function signingKeys(ex) {
    ex.headers = { ...ex.headers, ...PUBLIC_CORS, 'Cache-Control': 'public, max-age=300' };
    respond(ex, await jwks());
  };
}

/** The CORS preflight of the public documents. */
export const publicPreflight: Step = function publicPreflight(ex) {
  ex.headers = { ...ex.headers, ...PUBLIC_CORS };
  respondEmpty(ex, 204);
};

/** The CORS preflight of the MCP and REST endpoints (the settled CORS headers and what may be sent). */
export const preflight: Step = function preflight(ex) {
  ex.headers = { ...ex.headers, ...preflightHeaders(ex.req) };
  respondEmpty(ex, 204);
};

/** A method the path does not take: 405 with the Allow header and what the path takes. */
export function methodNotAllowed(allow: string, remedy: (path: string) => string): Step {
  return function methodNotAllowed(ex) {
    throw new SvcError('method_not_allowed', { remedy: remedy(withoutTrailingSlash(ex.path)), headers: { Allow: allow } });
  };
}

/** Device-flow and OAuth endpoints live on {auth_url}: any request here is the 405 of docs/contract.md "Errors". */
export function oauthElsewhere(authUrl: string): Step {
  return function oauthElsewhere(ex) {
    throw new SvcError('method_not_allowed', {
      remedy: `OAuth and device-flow requests go to the authorization host: ${authUrl}${ex.path}`,
      headers: { Allow: '' },
    });
  };
}

/** What no route takes. */
export const notFound: Step = function notFound(ex) {
  throw notFoundError(ex.req.method ?? 'GET', ex.path);
};

/** The path's parameters percent-decoded, whatever the method; a malformed encoding is the client's 400. */
export const decodeParams: Step = function decodeParams(ex) {
  const params: Record<string, string> = {};
  try {
    for (const [name, raw] of Object.entries(ex.params)) params[name] = decodeURIComponent(raw);
  } catch {
    throw new SvcError('invalid_request', {
      message: `Invalid request: the path ${ex.path.slice(0, 200)} could not be read`,
      remedy: 'Check the percent-encoding of the URL.',
    });
  }
  ex.params = params;
};

function withoutTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}
