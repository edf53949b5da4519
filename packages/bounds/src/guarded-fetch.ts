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
 * - redirects are never followed (a 3xx is handed back as it is, and the library refuses it).
 */
import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP } from 'node:net';

/** The whole fetch (resolution, connection, headers and body) ends within 5 s. */
export const CIMD_FETCH_TIMEOUT_MS = 5_000;
/** A metadata document is at most 8 KiB, as a registration's metadata is (registration-policy.ts). */
export const CIMD_MAX_DOCUMENT_BYTES = 8 * 1024;

/** IANA special-purpose address registries (RFC 6890 and its updates): nothing svc may fetch from. */
const SPECIAL_USE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private (RFC 1918)
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata endpoints)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  SPECIAL_USE.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 96], // unspecified, loopback, IPv4-compatible
  ['64:ff9b::', 96], // NAT64: embeds an IPv4 address
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments (Teredo among them)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: embeds an IPv4 address
  ['fc00::', 7], // unique local (private)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  SPECIAL_USE.addSubnet(net, prefix, 'ipv6');
}

/**
 * True for an address svc must never connect to on a client's behalf. IPv4-mapped IPv6
 * (`::ffff:127.0.0.1`, `::ffff:7f00:1`) is judged as the IPv4 address it carries.
 */
export function isSpecialUseAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return SPECIAL_USE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** What a tenant may be told of a refused address: never the address (it may map the internal network). */
const NON_PUBLIC_ADDRESS_REFUSAL = 'refused: the host resolves to a non-public address';

/**
 * The refusal of a fetch; its message is the detail oidc-provider logs (never sent to the client).
 * `tenantMessage`, when set, is what may be shown to whoever chose the URL (a webhook's owner).
 */
export class CimdFetchRefused extends Error {
  override name = 'CimdFetchRefused';
  readonly tenantMessage: string | undefined;
  constructor(message: string, tenantMessage?: string) {
    super(message);
    this.tenantMessage = tenantMessage;
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type Resolver = (host: string) => Promise<LookupAddress[]>;

/**
 * System lookups of the guarded client in flight at once. getaddrinfo runs on libuv's threadpool (4
 * threads, shared with file I/O and every other lookup), and a lookup that a never-answering
 * nameserver holds keeps its thread after our time limit gave up on it: a URL's owner could
 * otherwise hold every thread. A lookup counts until the system answers, not until we stop waiting.
 */
export const GUARDED_LOOKUPS_IN_FLIGHT = 2;

/** `resolve` with at most `max` lookups in flight; past it a lookup is refused at once (retried later by its caller). */
export function boundedResolver(resolve: Resolver, max = GUARDED_LOOKUPS_IN_FLIGHT): Resolver {
  let inFlight = 0;
  return (host) => {
    if (inFlight >= max) return Promise.reject(new CimdFetchRefused(`${max} name lookups are still in flight`, LOOKUPS_BUSY));
    inFlight++;
    const settled = () => void inFlight--;
    const lookup = resolve(host);
    lookup.then(settled, settled);
    return lookup;
  };
}

const systemResolver: Resolver = boundedResolver(
  (host) =>
    new Promise((ok, fail) => dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? fail(err) : ok(addresses)))),
);

/** What a tenant is told when the lookups' bound is reached: retried later, like an unreachable host. */
const LOOKUPS_BUSY = 'refused for now: too many name lookups in flight';

export interface CimdFetchOptions {
  /** Which addresses are refused; default isSpecialUseAddress. Tests of the bounds allow a local server. */
  refuse?: (address: string) => boolean;
  /** Name resolution; default the system's (getaddrinfo, as every Node connection uses). */
  resolve?: Resolver;
  /** The largest body read; default CIMD_MAX_DOCUMENT_BYTES (single sign-on reads larger ones, @svc/sso, packages/sso/src/bounds.ts). */
  maxBytes?: number;
  /**
   * Read the body of every status, not only 200, and send a request's method and form body (an
   * OpenID provider's token endpoint answers errors as JSON, RFC 6749 §5.2); CIMD only GETs.
   */
  anyStatus?: boolean;
}

type FetchLike = (url: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** The guarded fetch given to oidc-provider as its `fetch` option. */
export function createCimdFetch(options: CimdFetchOptions = {}): FetchLike {
  const refuse = options.refuse ?? isSpecialUseAddress;
  const resolve = options.resolve ?? systemResolver;
  const maxBytes = options.maxBytes ?? CIMD_MAX_DOCUMENT_BYTES;
  const anyStatus = options.anyStatus ?? false;

  /** Resolves once, refuses if any answer is special-use, and hands the socket exactly those addresses. */
  async function checkedAddresses(host: string): Promise<LookupAddress[]> {
    const literal = host.startsWith('[') ? host.slice(1, -1) : host;
    const addresses = isIP(literal) ? [{ address: literal, family: isIP(literal) }] : await resolve(literal);
    if (addresses.length === 0) throw new CimdFetchRefused(`${host} has no address`);
    const bad = addresses.find((a) => refuse(a.address));
    if (bad) throw new CimdFetchRefused(`${host} resolves to ${bad.address}, a special-use address`, NON_PUBLIC_ADDRESS_REFUSAL);
    return addresses;
  }

  return async function cimdFetch(input, init = {}) {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new CimdFetchRefused(`${url.protocol} is not fetched`);
    const deadline = AbortSignal.timeout(CIMD_FETCH_TIMEOUT_MS);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const addresses = await abortable(checkedAddresses(url.hostname), signal);
    const pinned = (_host: string, opts: LookupOptions, cb: LookupCallback) => {
      if (opts.all) cb(null, addresses);
      else cb(null, addresses[0]!.address, addresses[0]!.family);
    };
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const body = anyStatus ? formBody(init.body) : null;
    const req = send(url, {
      method: anyStatus && init.method ? init.method : 'GET',
      headers,
      agent: false,
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
    return toResponse(res, await readBounded(res, signal, maxBytes, anyStatus));
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
    const onAbort = () => fail(new CimdFetchRefused(`the fetch took more than ${CIMD_FETCH_TIMEOUT_MS} ms`));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(ok, fail).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The body, at most `maxBytes`; a longer one is cut off and refused. */
async function readBounded(res: IncomingMessage, signal: AbortSignal, maxBytes: number, anyStatus: boolean): Promise<Buffer | null> {
  if (res.statusCode !== 200 && !anyStatus) {
    res.destroy();
    return null;
  }
  const declared = Number(res.headers['content-length'] ?? 0);
  if (declared > maxBytes) {
    res.destroy();
    throw new CimdFetchRefused(`the document is ${declared} bytes, more than ${maxBytes}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const reading = (async () => {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) {
        res.destroy();
        throw new CimdFetchRefused(`the document is more than ${maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  })();
  return abortable(reading, signal).finally(() => res.destroy());
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
