/**
 * The outgoing fetch oidc-provider is given, around the guarded one (docs/auth-service.md
 * "Metadata choices"):
 * - a Client ID Metadata Document (a JSON object whose `client_id` is the URL it came from,
 *   draft-ietf-oauth-client-id-metadata-document §4.1) is handed on normalised (cimd-document.ts);
 * - the key set at such a client's jwks_uri is kept for its `max-age`, between
 *   CIMD_JWKS_CACHE.minMs and maxMs, for at most CIMD_JWKS_CACHE.maxEntries URLs. oidc-provider
 *   keeps a client's keys on the client object, and a metadata-document client is a new object
 *   at each request, so without this every token request of a `private_key_jwt` client would
 *   fetch its keys again.
 */

import { normaliseMetadataDocument } from './cimd-document.ts';

type Fetch = (url: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Bounds of the kept key sets of metadata-document clients. */
const CIMD_JWKS_CACHE = { minMs: 60_000, maxMs: 600_000, maxEntries: 200 } as const;

interface Kept {
  body: string;
  type: string;
  until: number;
}

/** How long a key set may be kept, from its Cache-Control max-age, within the bounds. */
function keepFor(res: Response): number {
  const maxAge = /(?:^|,)\s*max-age\s*=\s*(\d+)/i.exec(res.headers.get('cache-control') ?? '')?.[1];
  const ms = maxAge === undefined ? 0 : Number(maxAge) * 1000;
  return Math.min(CIMD_JWKS_CACHE.maxMs, Math.max(CIMD_JWKS_CACHE.minMs, ms));
}

/** The same answer with another body (its length header dropped: the body changed). */
function withBody(res: Response, body: string): Response {
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  headers.delete('content-encoding');
  return new Response(body, { status: res.status, statusText: res.statusText, headers });
}

/** `fetch` for oidc-provider: metadata documents normalised, their clients' key sets kept. */
export function cimdFetch(inner: Fetch, deps: { hostAllowed: (host: string) => boolean; now?: () => number }): Fetch {
  const now = deps.now ?? Date.now;
  /** The jwks_uri of every metadata-document client seen, with its kept key set once fetched. */
  const keySets = new Map<string, Kept | null>();
  const remember = (uri: string) => {
    if (keySets.has(uri)) return;
    if (keySets.size >= CIMD_JWKS_CACHE.maxEntries) keySets.delete(keySets.keys().next().value!);
    keySets.set(uri, null);
  };

  return async function fetchForProvider(input, init) {
    const url = input instanceof Request ? input.url : String(input);
    const method = (init?.method ?? 'GET').toUpperCase();
    const kept = method === 'GET' ? keySets.get(url) : undefined;
    if (kept && kept.until > now()) return new Response(kept.body, { status: 200, headers: { 'content-type': kept.type } });
    const res = await inner(input, init);
    if (method !== 'GET' || res.status !== 200) return res;
    if (kept !== undefined) {
      const body = await res.text();
      keySets.set(url, { body, type: res.headers.get('content-type') ?? 'application/json', until: now() + keepFor(res) });
      return withBody(res, body);
    }
    if (!/json/i.test(res.headers.get('content-type') ?? 'application/json')) return res;
    const text = await res.text();
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      return withBody(res, text);
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc) || (doc as { client_id?: unknown }).client_id !== url) {
      return withBody(res, text);
    }
    const normalised = normaliseMetadataDocument(doc as Record<string, unknown>, deps.hostAllowed);
    if (normalised['token_endpoint_auth_method'] === 'private_key_jwt' && typeof normalised['jwks_uri'] === 'string') {
      remember(new URL(normalised['jwks_uri']).href);
    }
    return withBody(res, JSON.stringify(normalised));
  };
}
