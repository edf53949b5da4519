/**
 * TRUST_PROXY: which forwarding proxies are named, so that only their `X-Forwarded-For` is read
 * (docs/operations.md "Proxies"). `off` (the default): the client is the peer of the TCP
 * connection and every forwarding header is ignored. A count `N`: exactly N proxies stand in front
 * of the service (the Ingress controller is 1), so the client is the N-th address from the right of
 * the peer and its `X-Forwarded-For`. A list of addresses or CIDRs (and proxy-addr's names
 * `loopback`, `linklocal`, `uniquelocal`): an `X-Forwarded-For` entry is believed only while every
 * address to its right is one of them. `on`, which believed any client's header, is refused.
 * The auth-service (Express `trust proxy`, oidc-provider) and the gateway share `clientAddress`.
 */
import type { IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';

export type TrustProxy = { kind: 'off' } | { kind: 'hops'; hops: number } | { kind: 'addresses'; addresses: string[] };

/** The most proxy hops TRUST_PROXY may name; deeper chains name their proxies' addresses instead. */
export const MAX_TRUST_PROXY_HOPS = 10;

/** The parsed TRUST_PROXY, or why the value is refused (a sentence naming the variable). */
export function parseTrustProxy(value: string): TrustProxy | string {
  const v = value.trim();
  if (v === 'off' || v === '0') return { kind: 'off' };
  if (v === 'on' || v === 'true')
    return (
      'TRUST_PROXY=on is no longer accepted: it believed the X-Forwarded-For of any client. ' +
      'Set the number of proxies in front of the service (1 behind the Ingress controller) or their addresses'
    );
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops > MAX_TRUST_PROXY_HOPS)
      return `TRUST_PROXY must be at most ${MAX_TRUST_PROXY_HOPS} hops (got ${hops}); name the proxies' addresses instead`;
    return { kind: 'hops', hops };
  }
  const addresses = v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (!addresses.length) return 'TRUST_PROXY must be off, a number of proxy hops, or a comma-separated list of proxy addresses/CIDRs';
  try {
    proxyAddr.compile(addresses);
  } catch (err) {
    return `TRUST_PROXY must be off, a number of proxy hops, or a comma-separated list of proxy addresses/CIDRs: ${(err as Error).message}`;
  }
  return { kind: 'addresses', addresses };
}

/** Whether the address at distance `i` from the service (0: the TCP peer) is a named proxy. */
export function trustFunction(trust: TrustProxy): (address: string, i: number) => boolean {
  switch (trust.kind) {
    case 'off':
      return () => false;
    case 'hops':
      return (_address, i) => i < trust.hops;
    case 'addresses': {
      const named = proxyAddr.compile(trust.addresses);
      return (address, i) => named(address, i);
    }
  }
}

/**
 * The client's address: the TCP peer, or, past named proxies only, the address they forwarded in
 * `X-Forwarded-For`. `Forwarded`, `X-Real-IP` and every other header are never read.
 */
export function clientAddress(req: IncomingMessage, trust: TrustProxy | ((address: string, i: number) => boolean)): string {
  // A connection already gone has no peer: nothing to read a forwarded address against.
  const peer = req.socket?.remoteAddress;
  if (!peer) return '';
  // Without X-Forwarded-For the peer is the answer whatever is trusted (proxy-addr would return it
  // too): no list to build on the requests that come straight from their clients.
  const address =
    req.headers['x-forwarded-for'] === undefined
      ? peer
      : // proxy-addr reads req.connection (gone from the typings, an alias of req.socket in node:http).
        proxyAddr(req as Parameters<typeof proxyAddr>[0], typeof trust === 'function' ? trust : trustFunction(trust));
  // One client, one bucket: a dual-stack socket's `::ffff:192.0.2.1` is the proxy's `192.0.2.1`.
  return IPV4_MAPPED.exec(address)?.[1] ?? address;
}
const IPV4_MAPPED = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i;
