/**
 * The guarded client's name lookups (docs/security.md "Shared pools, per-tenant shares"). They use
 * c-ares (node:dns Resolver), not getaddrinfo: getaddrinfo runs on libuv's four threads, shared with
 * file I/O, crypto and every other lookup, and keeps its thread until the system answers, however
 * long a tenant's name server takes. A c-ares query holds no thread, so a lookup that ran out of
 * time (OUTBOUND_BOUNDS.lookupTimeoutMs) holds nothing and its place is free again.
 *
 * What getaddrinfo would have read first is read here too: the hosts file (`/etc/hosts`, as
 * nsswitch's `files` before `dns`), and `localhost` and the names under it are loopback (RFC 6761
 * §6.3). Names are asked as given, without resolv.conf's search domains.
 */
import type { LookupAddress } from 'node:dns';
import { promises as dns } from 'node:dns';
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { OUTBOUND_BOUNDS, OUTBOUND_LANES, type OutboundLane, type ShareBounds } from './outbound-bounds.ts';
import { createShares, type Shares } from './shares.ts';

/** The tenant is past its share of lookups (or the lane is full): retried later by its caller. */
export class LookupBusy extends Error {
  override name = 'LookupBusy';
}

/** A name with no address: unknown, no A or AAAA record, refused by its name server, or no answer in time. */
export class LookupFailed extends Error {
  override name = 'LookupFailed';
}

export interface NameLookups {
  /** The addresses of `host`, looked up on `tenant`'s share of `lane`; LookupBusy or LookupFailed when there are none. */
  lookup(host: string, lane: OutboundLane, tenant: string, signal?: AbortSignal): Promise<LookupAddress[]>;
  /** Lookups in flight in `lane`: of `tenant`, or of every tenant. */
  inFlight(lane: OutboundLane, tenant?: string): number;
}

export interface NameLookupOptions {
  /** Name servers (`host:port`); default resolv.conf's. Tests name a local one. */
  servers?: readonly string[];
  /** Default `/etc/hosts`. */
  hostsFile?: string;
  /** Default OUTBOUND_BOUNDS.lookupTimeoutMs. */
  timeoutMs?: number;
  /** Default OUTBOUND_BOUNDS.lookups. */
  shares?: ShareBounds;
}

const LOOPBACK: readonly LookupAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

export function createNameLookups(options: NameLookupOptions = {}): NameLookups {
  const timeoutMs = options.timeoutMs ?? OUTBOUND_BOUNDS.lookupTimeoutMs;
  // Two tries of half the time each: c-ares itself gives up about when the place is freed.
  const half = Math.max(1, Math.floor(timeoutMs / 2));
  const resolver = new dns.Resolver({ timeout: half, tries: 2, maxTimeout: half });
  if (options.servers) resolver.setServers([...options.servers]);
  const lanes = Object.fromEntries(OUTBOUND_LANES.map((lane) => [lane, createShares(options.shares ?? OUTBOUND_BOUNDS.lookups)])) as Record<
    OutboundLane,
    Shares
  >;
  let hosts: Promise<Map<string, LookupAddress[]>> | null = null;

  /** A and AAAA asked together; what has come by the deadline is the answer. */
  function ask(host: string): Promise<LookupAddress[]> {
    return new Promise((ok, fail) => {
      const found: Record<4 | 6, LookupAddress[]> = { 4: [], 6: [] };
      const errors: string[] = [];
      let pending = 2;
      const settle = () => {
        clearTimeout(timer);
        const all = [...found[4], ...found[6]];
        if (all.length > 0) ok(all);
        else fail(new LookupFailed(`${host}: ${errors.join(', ') || 'no address'}`));
      };
      const timer = setTimeout(() => {
        errors.push(`no answer within ${timeoutMs} ms`);
        settle();
      }, timeoutMs);
      for (const family of [4, 6] as const) {
        (family === 4 ? resolver.resolve4(host) : resolver.resolve6(host))
          .then(
            (addresses) => found[family].push(...addresses.map((address) => ({ address, family }))),
            (err: unknown) => errors.push(`${family === 4 ? 'A' : 'AAAA'} ${(err as { code?: string }).code ?? 'failed'}`),
          )
          .finally(() => {
            if (--pending === 0) settle();
          });
      }
    });
  }

  return {
    async lookup(host, lane, tenant, signal) {
      const name = host.replace(/\.$/, '').toLowerCase();
      const family = isIP(name);
      if (family !== 0) return [{ address: name, family }];
      // The place is taken before anything is awaited, so it counts from the call on.
      const release = await lanes[lane].take(tenant, signal);
      if (!release) throw new LookupBusy(`too many name lookups of ${tenant} in flight (${lane})`);
      try {
        hosts ??= readHostsFile(options.hostsFile ?? '/etc/hosts');
        const local = (await hosts).get(name);
        if (local) return [...local];
        if (name === 'localhost' || name.endsWith('.localhost')) return [...LOOPBACK];
        return await ask(host);
      } finally {
        release();
      }
    },
    inFlight: (lane, tenant) => lanes[lane].held(tenant),
  };
}

/** The hosts file's names and their addresses (hosts(5)); an unreadable file is an empty one. */
async function readHostsFile(path: string): Promise<Map<string, LookupAddress[]>> {
  const table = new Map<string, LookupAddress[]>();
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return table;
  }
  for (const line of text.split('\n')) {
    const [address, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
    const family = address ? isIP(address) : 0;
    if (family === 0) continue;
    for (const n of names) {
      const key = n.replace(/\.$/, '').toLowerCase();
      const list = table.get(key) ?? [];
      list.push({ address: address!, family });
      table.set(key, list);
    }
  }
  return table;
}
