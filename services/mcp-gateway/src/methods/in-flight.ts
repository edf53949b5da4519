/**
 * The cap on tool calls in progress at once per credential (`toolCallsInFlight` in `@svc/limits`
 * BUCKETS; docs/operations.md "Limits for agents"), kept in each replica's memory: a slot is taken
 * when a call starts and given back when its promise settles, whichever way it ends (an answer, a
 * tool error, a throw, the time budget, an abort), so a slot never outlives its call. Per replica,
 * not cluster-wide: a counter in Redis would need a lease per call to survive a replica that dies
 * mid-call, and N replicas allow at most N times the cap.
 */
import type { ConcurrencyRule } from '@svc/limits';
import { SvcError } from '@svc/errors';

export interface InFlightCap {
  /** Runs `call` in a slot of `credential`'s, or refuses (rate_limited) when every slot is taken. */
  run<T>(credential: string, call: () => Promise<T>): Promise<T>;
  /** Calls of `credential` in progress here. */
  inFlight(credential: string): number;
}

export function createInFlightCap(rule: ConcurrencyRule): InFlightCap {
  const counts = new Map<string, number>();
  const release = (credential: string) => {
    const n = (counts.get(credential) ?? 1) - 1;
    // Only credentials with calls in progress are kept: the map is bounded by the calls running.
    if (n <= 0) counts.delete(credential);
    else counts.set(credential, n);
  };
  return {
    run(credential, call) {
      const n = counts.get(credential) ?? 0;
      if (n >= rule.concurrent) return Promise.reject(tooMany(rule.concurrent));
      counts.set(credential, n + 1);
      let running: ReturnType<typeof call>;
      try {
        running = call();
      } catch (err) {
        release(credential);
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
      return running.finally(() => release(credential));
    },
    inFlight: (credential) => counts.get(credential) ?? 0,
  };
}

/** The refusal in the shape of every limit refusal (docs/errors.md "Limit refusals"). */
function tooMany(limit: number): SvcError {
  return new SvcError('rate_limited', {
    message: `Too many tool calls in progress: this credential may have ${limit} at once`,
    remedy: 'Wait for a call in progress to finish, then retry.',
    headers: { 'Retry-After': '1', 'RateLimit-Limit': String(limit), 'RateLimit-Remaining': '0' },
    data: { retryAfterMs: 1000, limit, remaining: 0 },
  });
}
