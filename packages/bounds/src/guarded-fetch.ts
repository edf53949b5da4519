/**
 * The one guarded outgoing HTTP client: the auth-service's (oidc-provider's `fetch` option), used
 * for Client ID Metadata Documents (docs/auth-service.md "Client ID Metadata Documents") and single
 * sign-on, and webhook deliveries (docs/webhooks.md "Outbound protections"). A client_id URL is
 * chosen by whoever sends an authorize request, so the fetch must not become a way into the
 * network svc runs in (RFC 9700 §4.11.2 / OWASP SSRF):
 * - the host is resolved first and every address it resolves to is checked; loopback, private,
 *   link-local, multicast, unspecified and other special-use addresses (IPv4, IPv6, IPv4-mapped
 *   and -embedded IPv6) are refused before any connection is opened, whatever CIMD_ALLOWED_HOSTS
 *   says; the socket connects to the very addresses checked (DNS is asked once per fetch, so a
 *   rebinding answer cannot swap them);
 * - the whole exchange is bounded in time (CIMD_FETCH_TIMEOUT_MS) and size (CIMD_MAX_DOCUMENT_BYTES);
 * - lookups and connections come from pools shared out per tenant, in lanes, so one tenant's name
 *   server or receiver never holds another's, nor sign-in (outbound-bounds.ts);
 * - redirects are never followed (a 3xx is handed back as it is, and the library refuses it).
 * The checks themselves are outbound-guards.ts's; the tools lane (calls forwarded to upstream MCP
 * servers) uses the same guards through a lighter request of its own (guarded-request.ts).
 */
import type { LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { OutboundLane } from './outbound-bounds.ts';
import {
  bareHost,
  checkedAddresses,
  CimdFetchRefused,
  connectionPlace,
  pinnedLookup,
  type OutboundGuard,
  type Resolver,
} from './outbound-guards.ts';
import type { OutboundPools } from './outbound-pools.ts';
import { isSpecialUseAddress } from './special-use.ts';

export { isSpecialUseAddress } from './special-use.ts';
export { CimdFetchRefused, type Resolver } from './outbound-guards.ts';

/** The whole fetch (resolution, connection, headers and body) ends within 5 s. */
export const CIMD_FETCH_TIMEOUT_MS = 5_000;
/** A metadata document is at most 8 KiB, as a registration's metadata is (registration-policy.ts). */
export const CIMD_MAX_DOCUMENT_BYTES = 8 * 1024;

/**
 * A fetch's options, whose share of the pools it uses (default: the host's own), and how long the
 * whole exchange may take (default CIMD_FETCH_TIMEOUT_MS).
 */
export type GuardedInit = RequestInit & { tenant?: string; timeoutMs?: number };

/** Whose share a fetch takes: the workspace when the caller names one, else the URL's host (docs/security.md "Shared pools, per-tenant shares"). */
export function tenantOf(url: URL, init: GuardedInit | undefined): string {
  return init?.tenant ?? `host:${url.hostname}`;
}

export interface CimdFetchOptions {
  /** Which addresses are refused; default isSpecialUseAddress. Tests of the bounds allow a local server. */
  refuse?: (address: string) => boolean;
  /** Name resolution instead of the pools' lookups: tests answer names with hostile addresses. */
  resolve?: Resolver;
  /** Whose requests these are (outbound-bounds.ts); default `sign-in`. */
  lane?: OutboundLane;
  /** The lookups and connections shared out per tenant; default the process's (sharedOutboundPools). */
  pools?: OutboundPools;
  /** The largest body read; default CIMD_MAX_DOCUMENT_BYTES (single sign-on reads larger ones, @svc/sso, packages/sso/src/bounds.ts). */
  maxBytes?: number;
  /**
   * Read the body of every status, not only 200, and send a request's method and form body (an
   * OpenID provider's token endpoint answers errors as JSON, RFC 6749 §5.2); CIMD only GETs.
   */
  anyStatus?: boolean;
  /**
   * Past maxBytes, stop reading, close the connection and keep what was read, instead of refusing:
   * for callers that judge the answer by its status alone (webhook deliveries: docs/webhooks.md "Verdicts").
   */
  cutAtMaxBytes?: boolean;
}

type FetchLike = (url: string | URL | Request, init?: GuardedInit) => Promise<Response>;

/** The guarded fetch given to oidc-provider as its `fetch` option. */
export function createCimdFetch(options: CimdFetchOptions = {}): FetchLike {
  const refuse = options.refuse ?? isSpecialUseAddress;
  const lane = options.lane ?? 'sign-in';
  const maxBytes = options.maxBytes ?? CIMD_MAX_DOCUMENT_BYTES;
  const anyStatus = options.anyStatus ?? false;
  const cut = options.cutAtMaxBytes ?? false;
  const guard: OutboundGuard = { refuse, resolve: options.resolve, lane, pools: options.pools };

  /** One request to the checked addresses, its answer read within the bounds. */
  async function exchange(url: URL, init: GuardedInit, addresses: LookupAddress[], signal: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    const https = url.protocol === 'https:';
    const send = https ? httpsRequest : httpRequest;
    const body = anyStatus ? formBody(init.body) : null;
    const req = send(url, {
      method: anyStatus && init.method ? init.method : 'GET',
      headers,
      agent: false,
      signal,
      // An IP literal never reaches `lookup`; it was checked above.
      lookup: pinnedLookup(addresses) as never,
      ...(url.protocol === 'https:' && isIP(url.hostname) === 0 ? { servername: url.hostname } : {}),
    });
    req.end(body ?? undefined);
    const res = await abortable(
      new Promise<IncomingMessage>((ok, fail) => {
        req.once('response', ok);
        req.once('error', fail);
      }),
      signal,
    );
    return toResponse(res, await readBounded(res, signal, { maxBytes, anyStatus, cut }));
  }

  return async function cimdFetch(input, init = {}) {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new CimdFetchRefused(`${url.protocol} is not fetched`);
    const tenant = tenantOf(url, init);
    const deadline = AbortSignal.timeout(init.timeoutMs ?? CIMD_FETCH_TIMEOUT_MS);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const addresses = await abortable(checkedAddresses(guard, bareHost(url.hostname), tenant, signal), signal);
    const release = await connectionPlace(guard, tenant, signal);
    try {
      return await exchange(url, init, addresses, signal);
    } finally {
      release();
    }
  };
}

/** A request body as text: only forms and strings are sent (what an OpenID client posts). */
function formBody(body: RequestInit['body']): string | null {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  throw new CimdFetchRefused('only form and text bodies are sent');
}

function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new CimdFetchRefused('the fetch took too long', undefined, 'timeout'));
  return new Promise<T>((ok, fail) => {
    const onAbort = () => fail(new CimdFetchRefused('the fetch took longer than its time allows', undefined, 'timeout'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(ok, fail).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The body, at most `maxBytes`; a longer one is cut off there, and refused unless `cut`. */
async function readBounded(
  res: IncomingMessage,
  signal: AbortSignal,
  { maxBytes, anyStatus, cut }: { maxBytes: number; anyStatus: boolean; cut: boolean },
): Promise<Buffer | null> {
  if (res.statusCode !== 200 && !anyStatus) {
    res.destroy();
    return null;
  }
  const declared = Number(res.headers['content-length'] ?? 0);
  if (declared > maxBytes) {
    res.destroy();
    if (cut) return Buffer.alloc(0);
    throw new CimdFetchRefused(`the document is ${declared} bytes, more than ${maxBytes}`, undefined, 'too_large');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const reading = (async () => {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      if (size + chunk.length > maxBytes) {
        res.destroy();
        if (!cut) throw new CimdFetchRefused(`the document is more than ${maxBytes} bytes`, undefined, 'too_large');
        chunks.push(chunk.subarray(0, maxBytes - size));
        break;
      }
      size += chunk.length;
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  })();
  // A body not read to its end leaves its connection open: it is closed.
  return abortable(reading, signal).finally(() => {
    if (!res.complete) res.destroy();
  });
}

function toResponse(res: IncomingMessage, body: Buffer | null): Response {
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 599) throw new CimdFetchRefused(`unexpected status ${status}`);
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    try {
      headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
    } catch {
      // A header value fetch's Headers cannot hold is dropped; the document does not depend on it.
    }
  }
  // Fetch standard "null body status" (101, 103, 204, 205, 304): a Response with these holds no body,
  // and constructing one with a body throws, which would make a receiver's 204 a failed delivery.
  const nullBody = [101, 103, 204, 205, 304].includes(status);
  return new Response(body && !nullBody ? new Uint8Array(body) : null, { status, headers });
}
