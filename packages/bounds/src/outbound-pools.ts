/**
 * The pools every guarded client of a process shares (docs/security.md "Shared pools, per-tenant
 * shares"): name lookups and connections, each split into lanes and shared out per tenant
 * (outbound-bounds.ts).
 */
import { createNameLookups, type NameLookupOptions, type NameLookups } from './name-lookups.ts';
import { connectionBoundsOf, OUTBOUND_LANES, type OutboundLane, type ShareBounds } from './outbound-bounds.ts';
import { createShares, type Shares } from './shares.ts';

export interface OutboundPools {
  lookups: NameLookups;
  connections: Record<OutboundLane, Shares>;
}

export interface OutboundPoolOptions extends NameLookupOptions {
  /** Default each lane's (connectionBoundsOf). */
  connections?: ShareBounds;
}

export function createOutboundPools(options: OutboundPoolOptions = {}): OutboundPools {
  return {
    lookups: createNameLookups(options),
    connections: Object.fromEntries(
      OUTBOUND_LANES.map((lane) => [lane, createShares(options.connections ?? connectionBoundsOf(lane))]),
    ) as Record<OutboundLane, Shares>,
  };
}

let processPools: OutboundPools | null = null;

/** The process's pools, made at their first use (never at import): every guarded client shares them. */
export function sharedOutboundPools(): OutboundPools {
  processPools ??= createOutboundPools();
  return processPools;
}
