/** Which browser origins may call the MCP and REST endpoints, and the CORS headers they get. */
import type { IncomingMessage } from 'node:http';
import type { Headers } from './http/respond.ts';

const LOOPBACK = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/i;

export interface OriginPolicy {
  allowed(origin: string): boolean;
  corsHeaders(req: IncomingMessage): Headers;
}

/**
 * Allowed: the service's own origins, ALLOWED_ORIGINS ('*' for any), and loopback origins outside
 * production (local MCP inspectors). Everything else gets 403 (MCP 2025-11-25, DNS rebinding).
 */
export function createOriginPolicy(opts: { baseUrl: string; authUrl: string; extra: string[]; production: boolean }): OriginPolicy {
  const any = opts.extra.includes('*');
  const exact = new Set([opts.baseUrl, opts.authUrl, ...opts.extra].map((o) => o.toLowerCase()));
  const allowed = (origin: string) => any || exact.has(origin.toLowerCase()) || (!opts.production && LOOPBACK.test(origin));
  return {
    allowed,
    corsHeaders(req): Headers {
      const origin = req.headers.origin;
      if (!origin || !allowed(origin)) return {};
      return {
        'Access-Control-Allow-Origin': origin,
        Vary: 'Origin',
        'Access-Control-Expose-Headers': EXPOSED,
      };
    },
  };
}

const EXPOSED =
  'WWW-Authenticate, Mcp-Session-Id, X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit, RateLimit-Policy, RateLimit-Limit, RateLimit-Remaining, Retry-After, Deprecation';

const ALLOWED_REQUEST_HEADERS = new Set([
  'content-type',
  'accept',
  'authorization',
  'x-api-key',
  'mcp-protocol-version',
  'mcp-session-id',
  'mcp-method',
  'mcp-name',
  'x-svc-surface',
  'last-event-id',
  // RFC 9449 §4.1: a browser client's proof of possession.
  'dpop',
]);

/**
 * CORS preflight: the methods, and the request headers a browser client may send, including MCP
 * 2026-07-28's Mcp-Method, Mcp-Name and any Mcp-Param-<Name> (named one by one, since `*` is not a
 * wildcard for requests that carry credentials).
 */
export function preflightHeaders(req: IncomingMessage): Headers {
  const asked = String(req.headers['access-control-request-headers'] ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => ALLOWED_REQUEST_HEADERS.has(h) || /^mcp-param-[a-z0-9-]{1,64}$/.test(h));
  return {
    'Access-Control-Allow-Methods': 'POST, OPTIONS',
    'Access-Control-Allow-Headers': [...new Set([...ALLOWED_REQUEST_HEADERS, ...asked])].join(', '),
    'Access-Control-Max-Age': '600',
  };
}
