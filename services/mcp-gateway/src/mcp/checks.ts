/** Transport checks of the Streamable HTTP transport, done before anything is read. */
import type { IncomingHttpHeaders } from 'node:http';
import { SvcError } from '@svc/errors';
import type { Surface } from '@svc/policy';
import { isSurface } from '@svc/policy';

/** MCP 2025-11-25 "Security Warning": a present Origin that is not allowed gets 403. */
export function checkOrigin(headers: IncomingHttpHeaders, allowed: (origin: string) => boolean): void {
  const origin = headers.origin;
  if (origin !== undefined && !allowed(origin)) {
    throw new SvcError('forbidden_origin', { message: `Origin not allowed: ${origin.slice(0, 200)}` });
  }
}

/** JSON in, JSON out: a body must be application/json; an Accept header must admit JSON. */
export function checkMediaTypes(headers: IncomingHttpHeaders): void {
  const type = headers['content-type'];
  if (!type || !/^application\/json\s*(;|$)/i.test(type)) {
    throw new SvcError('unsupported_media_type', {
      message: `Unsupported Media Type: send Content-Type: application/json${type ? ` (got ${type.slice(0, 80)})` : ''}`,
    });
  }
  const encoding = headers['content-encoding'];
  if (encoding && encoding.trim().toLowerCase() !== 'identity') {
    throw new SvcError('unsupported_media_type', {
      message: `Unsupported Media Type: Content-Encoding ${encoding.slice(0, 40)} is not accepted; send the JSON body uncompressed`,
      remedy: 'Send the body without Content-Encoding.',
    });
  }
  const accept = headers.accept;
  if (accept && !/application\/json|application\/\*|\*\/\*/i.test(accept)) {
    throw new SvcError('not_acceptable', { message: 'Not Acceptable: the Accept header must include application/json' });
  }
}

/** The surface asked for with X-Svc-Surface, or the credential's default. */
export function surfaceOf(headers: IncomingHttpHeaders, fallback: Surface): Surface {
  const s = headers['x-svc-surface'];
  if (s === undefined) return fallback;
  const v = String(s).trim().toLowerCase();
  if (!isSurface(v)) {
    throw new SvcError('invalid_request', {
      message: `Invalid X-Svc-Surface: ${String(s).slice(0, 40)}; use hosted, companion or orchestrator`,
    });
  }
  return v;
}
