import { randomSecret } from '@svc/credentials';
import type { Redis } from './redis.ts';
import { INVALIDATION_CHANNEL } from './keys.ts';

/** What every store of the account model shares. */
export interface StoreContext {
  redis: Redis;
  /** Pepper of the keyed credential hash (KEY_PEPPER). */
  pepper: string;
  bcryptCost: number;
  now: () => number;
}

/** Tells every gateway replica to drop its cached verifications (docs/redis-schema.md). */
export async function invalidate(ctx: StoreContext, what: string): Promise<void> {
  await ctx.redis.publish(INVALIDATION_CHANNEL, what);
}

/** A new opaque id with a type prefix, e.g. `user_3kT...`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomSecret(16)}`;
}

export const num = (s: string | undefined): number | null => (s === undefined || s === '' ? null : Number(s));
