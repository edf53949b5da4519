/**
 * The guarded client's shared pools and each tenant's share of them, declared here only
 * (docs/security.md "Shared pools, per-tenant shares"). A pool is split into lanes, so sign-in never
 * waits behind webhook deliveries; inside a lane each tenant (a workspace, or the host asked when
 * the caller has no workspace) holds at most its share, and waits only behind its own requests.
 */

/**
 * Who an outbound request serves. `sign-in`: Client ID Metadata Documents, client and issuer JWKS,
 * single sign-on discovery, keys and tokens. `deliveries`: webhook deliveries. `tools`: calls
 * forwarded to a project's upstream MCP servers (docs/upstream-servers.md), and their discovery.
 */
export type OutboundLane = 'sign-in' | 'deliveries' | 'tools';

/** Every lane, each with pools of its own. */
export const OUTBOUND_LANES = ['sign-in', 'deliveries', 'tools'] as const satisfies readonly OutboundLane[];

/** One pool of a lane: what each tenant may hold and wait for, and what the lane holds in all. */
export interface ShareBounds {
  /** Places one tenant holds at once. */
  readonly perTenant: number;
  /** A tenant's requests waiting for one of its own places; past it a request is refused at once. */
  readonly waitingPerTenant: number;
  /** Places held in the lane by every tenant together; past it a request is refused at once. */
  readonly perLane: number;
}

export const OUTBOUND_BOUNDS = {
  /**
   * A name lookup (A and AAAA together) ends within this, answered or not, and its place is free
   * again then: lookups use c-ares (node:dns Resolver), which holds no libuv thread, so a name
   * server that never answers holds nothing once the time is up.
   */
  lookupTimeoutMs: 2_000,
  /** Name lookups in flight. */
  lookups: { perTenant: 4, waitingPerTenant: 16, perLane: 256 },
  /** Connections (one exchange each: connect, send, read the bounded answer) in flight. */
  connections: { perTenant: 8, waitingPerTenant: 16, perLane: 128 },
  /**
   * The tools lane's connections: a forwarded tool call is on a caller's request path, so a
   * workspace may hold more of them at once; each is still bounded in time by its upstream's timeout.
   */
  toolConnections: { perTenant: 32, waitingPerTenant: 64, perLane: 512 },
} as const satisfies { lookupTimeoutMs: number; lookups: ShareBounds; connections: ShareBounds; toolConnections: ShareBounds };

/** The connection share of a lane (OUTBOUND_BOUNDS). */
export const connectionBoundsOf = (lane: OutboundLane): ShareBounds =>
  lane === 'tools' ? OUTBOUND_BOUNDS.toolConnections : OUTBOUND_BOUNDS.connections;
