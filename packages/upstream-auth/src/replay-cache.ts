/**
 * The `jti` values already accepted, each kept until its token expires (RFC 7519 §4.1.7: a `jti`
 * lets the recipient refuse a replayed token). In memory, so it guards one process: with several
 * replicas a replay that lands on another replica passes, which the short lifetime and the exact
 * audience bound (docs/upstream-servers.md "Replay").
 */
import { SvcVerifierError } from './errors.ts';

/** The default bound of a replay cache: 100,000 tokens within their lifetime, a few MB. */
export const DEFAULT_REPLAY_CACHE_SIZE = 100_000;

/** A bounded set of seen `jti`s. */
export interface ReplayCache {
  /** Records `jti` until `expiresAtMs`; false when it was already there (a replay). */
  claim(jti: string, expiresAtMs: number): boolean;
}

/**
 * Creates a cache of at most `maxEntries`. Full of unexpired entries, it throws SvcVerifierError
 * rather than forget one (forgetting would let that token be replayed).
 */
export function createReplayCache(options: { maxEntries: number; now: () => number }): ReplayCache {
  const { maxEntries, now } = options;
  const seen = new Map<string, number>();
  // The earliest expiry among the entries since the last full sweep: before it, a sweep frees nothing.
  let earliestExpiry = Infinity;

  const sweep = (at: number) => {
    earliestExpiry = Infinity;
    for (const [jti, expiresAt] of seen) {
      if (expiresAt <= at) seen.delete(jti);
      else earliestExpiry = Math.min(earliestExpiry, expiresAt);
    }
  };

  return {
    claim(jti, expiresAtMs) {
      const at = now();
      const known = seen.get(jti);
      if (known !== undefined && known > at) return false;
      if (seen.size >= maxEntries && earliestExpiry <= at) sweep(at);
      if (seen.size >= maxEntries) {
        throw new SvcVerifierError('replay_cache_full', `the replay cache holds ${maxEntries} unexpired tokens`);
      }
      seen.delete(jti);
      seen.set(jti, expiresAtMs);
      earliestExpiry = Math.min(earliestExpiry, expiresAtMs);
      return true;
    },
  };
}
