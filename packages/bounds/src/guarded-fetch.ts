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
 */
import type { LookupAddress, LookupOptions } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { LookupBusy } from './name-lookups.ts';
import type { OutboundLane } from './outbound-bounds.ts';
import { sharedOutboundPools, type OutboundPools } from './outbound-pools.ts';
import type { Release } from './shares.ts';
import { isSpecialUseAddress } from './special-use.ts';

export { isSpecialUseAddress } from './special-use.ts';

/** The whole fetch (resolution, connection, headers and body) ends within 5 s. */
export const CIMD_FETCH_TIMEOUT_MS = 5_000;
/** A metadata document is at most 8 KiB, as a registration's metadata is (registration-policy.ts). */
export const CIMD_MAX_DOCUMENT_BYTES = 8 * 1024;

/**
 * Why a fetch was refused, for its caller: `address` (the host has no public address: it does not
 * resolve, or resolves to a special-use one; the two are told alike, so a tenant cannot learn which
 * internal names exist), `busy` (the tenant's share of a pool is held; try again later) or `other`.
 */
export type RefusalReason = 'address' | 'busy' | 'other';

/** What a tenant may be told of a host without a public address: never the address, nor whether the name exists. */
const ADDRESS_REFUSAL = 'refused: the host does not resolve to a public address';
/** What a tenant is told when its share of lookups or connections is held: retried later, like an unreachable host. */
const LOOKUPS_BUSY = 'refused for now: too many name lookups in flight for this workspace';
const CONNECTIONS_BUSY = 'refused for now: too many requests in flight for this workspace';

/**
 * The refusal of a fetch; its message is the detail oidc-provider logs (never sent to the client).
 * `tenantMessage`, when set, is what may be shown to whoever chose the URL (a webhook's owner).
 */
export class CimdFetchRefused extends Error {
  override name = 'CimdFetchRefused';
  readonly tenantMessage: string | undefined;
  readonly reason: RefusalReason;
  constructor(message: string, tenantMessage?: string, reason: RefusalReason = 'other') {
    super(message);
    this.tenantMessage = tenantMessage;
    this.reason = reason;
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type Resolver = (host: string) => Promise<LookupAddress[]>;

/**
 * A fetch's options, whose share of the pools it uses (default: the host's own), and how long the
 * whole exchange may take (default CIMD_FETCH_TIMEOUT_MS).
 */
export type GuardedInit = RequestInit & { tenant?: string; timeoutMs?: number };

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
  /**
   * Keep connections open between exchanges (one agent per client): for a client that calls the
   * same few hosts on a caller's request path (forwarded tool calls). A kept connection was opened
   * to an address checked when it was opened.
   */
  keepAlive?: boolean;
}

type FetchLike = (url: string | URL | Request, init?: GuardedInit) => Promise<Response>;

/** The guarded fetch given to oidc-provider as its `fetch` option. */
export function createCimdFetch(options: CimdFetchOptions = {}): FetchLike {
  const refuse = options.refuse ?? isSpecialUseAddress;
  const lane = options.lane ?? 'sign-in';
  const maxBytes = options.maxBytes ?? CIMD_MAX_DOCUMENT_BYTES;
  const anyStatus = options.anyStatus ?? false;
  const cut = options.cutAtMaxBytes ?? false;
  const agents = options.keepAlive ? { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) } : null;

  /** Resolves once, refuses if any answer is special-use, and hands the socket exactly those addresses. */
  async function checkedAddresses(host: string, tenant: string, signal: AbortSignal): Promise<LookupAddress[]> {
    const literal = host.startsWith('[') ? host.slice(1, -1) : host;
    let addresses: LookupAddress[];
    if (isIP(literal)) addresses = [{ address: literal, family: isIP(literal) }];
    else {
      try {
        const pools = options.pools ?? sharedOutboundPools();
        addresses = await (options.resolve ? options.resolve(literal) : pools.lookups.lookup(literal, lane, tenant, signal));
      } catch (err) {
        if (err instanceof LookupBusy) throw new CimdFetchRefused(err.message, LOOKUPS_BUSY, 'busy');
        throw new CimdFetchRefused(
          `${host} could not be resolved: ${err instanceof Error ? err.message : String(err)}`,
          ADDRESS_REFUSAL,
          'address',
        );
      }
    }
    if (addresses.length === 0) throw new CimdFetchRefused(`${host} has no address`, ADDRESS_REFUSAL, 'address');
    const bad = addresses.find((a) => refuse(a.address));
    if (bad) throw new CimdFetchRefused(`${host} resolves to ${bad.address}, a special-use address`, ADDRESS_REFUSAL, 'address');
    return addresses;
  }

  /** A place of `tenant`'s share of connections, never lost to an abort that raced its grant. */
  async function connectionPlace(tenant: string, signal: AbortSignal): Promise<Release> {
    const taking = (options.pools ?? sharedOutboundPools()).connections[lane].take(tenant, signal);
    let release: Release | null;
    try {
      release = await abortable(taking, signal);
    } catch (err) {
      void taking.then((granted) => granted?.());
      throw err;
    }
    if (!release) throw new CimdFetchRefused(`too many connections of ${tenant} in flight (${lane})`, CONNECTIONS_BUSY, 'busy');
    return release;
  }

  /** One request to the checked addresses, its answer read within the bounds. */
  async function exchange(url: URL, init: GuardedInit, addresses: LookupAddress[], signal: AbortSignal): Promise<Response> {
    const pinned = (_host: string, opts: LookupOptions, cb: LookupCallback) => {
      if (opts.all) cb(null, addresses);
      else cb(null, addresses[0]!.address, addresses[0]!.family);
    };
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    const https = url.protocol === 'https:';
    const send = https ? httpsRequest : httpRequest;
    const body = anyStatus ? formBody(init.body) : null;
    const req = send(url, {
      method: anyStatus && init.method ? init.method : 'GET',
      headers,
      agent: agents ? (https ? agents.https : agents.http) : false,
      signal,
      // An IP literal never reaches `lookup`; it was checked above.
      lookup: pinned as never,
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
    // Shared out per workspace when the caller names one, else per host (docs/security.md "Shared pools, per-tenant shares").
    const tenant = init.tenant ?? `host:${url.hostname}`;
    const deadline = AbortSignal.timeout(init.timeoutMs ?? CIMD_FETCH_TIMEOUT_MS);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const addresses = await abortable(checkedAddresses(url.hostname, tenant, signal), signal);
    const release = await connectionPlace(tenant, signal);
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
  if (signal.aborted) return Promise.reject(new CimdFetchRefused('the fetch took too long'));
  return new Promise<T>((ok, fail) => {
    const onAbort = () => fail(new CimdFetchRefused('the fetch took longer than its time allows'));
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
    throw new CimdFetchRefused(`the document is ${declared} bytes, more than ${maxBytes}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const reading = (async () => {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      if (size + chunk.length > maxBytes) {
        res.destroy();
        if (!cut) throw new CimdFetchRefused(`the document is more than ${maxBytes} bytes`);
        chunks.push(chunk.subarray(0, maxBytes - size));
        break;
      }
      size += chunk.length;
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  })();
  // A body read to its end leaves the connection to its agent (kept open with keepAlive); any other is closed.
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
