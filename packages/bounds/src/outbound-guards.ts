/**
 * What every guarded outgoing request meets before it is sent (RFC 9700 §4.11.2 / OWASP SSRF;
 * docs/security.md "Shared pools, per-tenant shares"), shared by the guarded fetch
 * (guarded-fetch.ts) and the tools lane's request (guarded-request.ts):
 * - the host is resolved once, every address it resolves to is checked, and the socket connects to
 *   exactly those addresses (a rebinding answer cannot swap them);
 * - the request takes a place of its tenant's share of connections in its lane, or is refused.
 */
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { LookupBusy } from './name-lookups.ts';
import type { OutboundLane } from './outbound-bounds.ts';
import { sharedOutboundPools, type OutboundPools } from './outbound-pools.ts';
import type { Release } from './shares.ts';

/**
 * Why a request was refused, for its caller: `address` (the host has no public address: it does
 * not resolve, or resolves to a special-use one; the two are told alike, so a tenant cannot learn
 * which internal names exist), `busy` (the tenant's share of a pool is held; try again later),
 * `timeout` (past its time), `too_large` (an answer past its size bound) or `other`.
 */
export type RefusalReason = 'address' | 'busy' | 'timeout' | 'too_large' | 'other';

/** What a tenant may be told of a host without a public address: never the address, nor whether the name exists. */
const ADDRESS_REFUSAL = 'refused: the host does not resolve to a public address';
/** What a tenant is told when its share of lookups or connections is held: retried later, like an unreachable host. */
const LOOKUPS_BUSY = 'refused for now: too many name lookups in flight for this workspace';
const CONNECTIONS_BUSY = 'refused for now: too many requests in flight for this workspace';

/**
 * The refusal of a request; its message is the detail oidc-provider logs (never sent to the client).
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

export type Resolver = (host: string) => Promise<LookupAddress[]>;

/** Which addresses are refused, how names are resolved, and whose pools the request uses. */
export interface OutboundGuard {
  refuse: (address: string) => boolean;
  /** Name resolution instead of the pools' lookups: tests answer names with hostile addresses. */
  resolve?: Resolver | undefined;
  lane: OutboundLane;
  /** Default the process's (sharedOutboundPools). */
  pools?: OutboundPools | undefined;
}

/** The host of a URL without an IPv6 literal's brackets. */
export const bareHost = (hostname: string) => (hostname.startsWith('[') ? hostname.slice(1, -1) : hostname);

/** An IP literal host, checked: its one address, or null when the host is a name to resolve. */
export function literalAddresses(guard: OutboundGuard, host: string): LookupAddress[] | null {
  const family = isIP(host);
  if (family === 0) return null;
  if (guard.refuse(host)) throw new CimdFetchRefused(`${host} is a special-use address`, ADDRESS_REFUSAL, 'address');
  return [{ address: host, family }];
}

/** Resolves once, refuses if any answer is special-use, and gives exactly those addresses for the socket. */
export async function checkedAddresses(guard: OutboundGuard, host: string, tenant: string, signal: AbortSignal): Promise<LookupAddress[]> {
  const literal = literalAddresses(guard, host);
  if (literal) return literal;
  let addresses: LookupAddress[];
  try {
    const pools = guard.pools ?? sharedOutboundPools();
    addresses = await (guard.resolve ? guard.resolve(host) : pools.lookups.lookup(host, guard.lane, tenant, signal));
  } catch (err) {
    if (err instanceof LookupBusy) throw new CimdFetchRefused(err.message, LOOKUPS_BUSY, 'busy');
    throw new CimdFetchRefused(
      `${host} could not be resolved: ${err instanceof Error ? err.message : String(err)}`,
      ADDRESS_REFUSAL,
      'address',
    );
  }
  if (addresses.length === 0) throw new CimdFetchRefused(`${host} has no address`, ADDRESS_REFUSAL, 'address');
  const bad = addresses.find((a) => guard.refuse(a.address));
  if (bad) throw new CimdFetchRefused(`${host} resolves to ${bad.address}, a special-use address`, ADDRESS_REFUSAL, 'address');
  return addresses;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** node:net's `lookup` option answering with the checked addresses only (an IP literal never reaches it). */
export function pinnedLookup(addresses: LookupAddress[]) {
  return (_host: string, opts: LookupOptions, cb: LookupCallback) => {
    if (opts.all) cb(null, addresses);
    else cb(null, addresses[0]!.address, addresses[0]!.family);
  };
}

/**
 * A place of `tenant`'s share of connections in the guard's lane, or the refusal: `busy` when the
 * share is held past its waiting bound (or the lane is full), `timeout` when `signal` ended the
 * wait. A place granted as the signal aborted is given back, never lost.
 */
export async function connectionPlace(guard: OutboundGuard, tenant: string, signal: AbortSignal): Promise<Release> {
  const release = await (guard.pools ?? sharedOutboundPools()).connections[guard.lane].take(tenant, signal);
  if (release && signal.aborted) release();
  if (!release || signal.aborted) {
    if (signal.aborted) throw new CimdFetchRefused('the request took longer than its time allows', undefined, 'timeout');
    throw new CimdFetchRefused(`too many connections of ${tenant} in flight (${guard.lane})`, CONNECTIONS_BUSY, 'busy');
  }
  return release;
}
