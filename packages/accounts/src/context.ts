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

/**
 * The most commands a background write (last-used times) sends at once on a connection that also
 * carries requests: the next slice goes when this one is answered, so a request's command waits
 * behind at most one slice, never behind the whole write (100,000 keys used within a flush would
 * otherwise queue 100,000 commands ahead of it, past the request commands' timeout).
 */
export const BACKGROUND_WRITE_SLICE = 500;

/** Runs `write` over `items` a slice at a time (BACKGROUND_WRITE_SLICE), each slice's writes together. */
export async function writeInSlices<T>(items: readonly T[], write: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += BACKGROUND_WRITE_SLICE) await Promise.all(items.slice(i, i + BACKGROUND_WRITE_SLICE).map(write));
}

export const num = (s: string | undefined): number | null => (s === undefined || s === '' ? null : Number(s));
