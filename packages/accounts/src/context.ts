import { randomSecret } from '@svc/credentials';
import type { CollectionLimits } from './collection-limits.ts';
import type { Redis } from './redis.ts';
import { INVALIDATION_CHANNEL } from './keys.ts';

/** What every store of the account model shares. */
export interface StoreContext {
  /** Writes through it are confirmed by REDIS_WAIT_REPLICAS replicas (replicated-writes.ts). */
  redis: Redis;
  /**
   * The same connection without the replicas' confirmation, for writes whose loss costs nothing:
   * API keys' last-used times (docs/operations.md "Write durability").
   */
  unconfirmed: Redis;
  /** Pepper of the keyed credential hash (KEY_PEPPER). */
  pepper: string;
  /** The pepper being retired (KEY_PEPPER_PREVIOUS): keys under it are re-hashed on use. */
  previousPepper: string | null;
  bcryptCost: number;
  now: () => number;
  /** COLLECTION_LIMITS unless a test sets smaller ones. */
  limits: CollectionLimits;
}

/**
 * Tells every gateway replica to drop the cached verifications that depend on what changed, one
 * message per change (INVALIDATES; docs/redis-schema.md "Invalidation"). Called after the write,
 * so a replica that re-reads on the message sees the new state.
 */
export async function invalidate(ctx: StoreContext, ...what: string[]): Promise<void> {
  await Promise.all(what.map((message) => ctx.redis.publish(INVALIDATION_CHANNEL, message)));
}

/** A new opaque id with a type prefix, e.g. `user_3kT...`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomSecret(16)}`;
}

export const num = (s: string | undefined): number | null => (s === undefined || s === '' ? null : Number(s));
