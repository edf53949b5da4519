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
  'WWW-Authenticate, Mcp-Session-Id, X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit, RateLimit-Policy, Retry-After, Deprecation';

export const PREFLIGHT_HEADERS = {
  'Access-Control-Allow-Methods': 'POST, OPTIONS',
  'Access-Control-Allow-Headers':
    'Content-Type, Accept, Authorization, X-API-Key, MCP-Protocol-Version, Mcp-Session-Id, X-Svc-Surface, Last-Event-ID',
  'Access-Control-Max-Age': '600',
};
