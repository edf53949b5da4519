/**
 * A breaker per upstream in each gateway (docs/upstream-servers.md "Failures"): after
 * UPSTREAM_LIMITS.breaker.failures failed calls in a row, calls are refused at once for `openMs`,
 * so an upstream that hangs holds neither the gateway's connections nor its callers; then one call
 * is let through, and its outcome closes or opens the breaker again.
 */
import { UPSTREAM_LIMITS } from './limits.ts';

interface State {
  failures: number;
  openUntil: number;
  trying: boolean;
}

export class Breakers {
  private readonly states = new Map<string, State>();
  private readonly now: () => number;
  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** Whether a call to `key` may go now (a half-open breaker lets one through). */
  allow(key: string): boolean {
    const s = this.states.get(key);
    if (!s || s.failures < UPSTREAM_LIMITS.breaker.failures) return true;
    if (this.now() < s.openUntil || s.trying) return false;
    s.trying = true;
    return true;
  }

  /**
   * A call let through whose outcome says nothing of the upstream's health (svc refused it itself:
   * the workspace's share of the tools lane was held): not counted, and a half-open breaker's trial
   * is given back, so the next call may try.
   */
  release(key: string): void {
    const s = this.states.get(key);
    if (s) s.trying = false;
  }

  /** A call's outcome: a success closes the breaker, a failure counts towards opening it. */
  record(key: string, ok: boolean): void {
    if (ok) {
      this.states.delete(key);
      return;
    }
    const s = this.states.get(key) ?? { failures: 0, openUntil: 0, trying: false };
    s.failures++;
    s.trying = false;
    if (s.failures >= UPSTREAM_LIMITS.breaker.failures) s.openUntil = this.now() + UPSTREAM_LIMITS.breaker.openMs;
    this.states.set(key, s);
    // Bounded: an upstream removed leaves its state behind; the oldest states go first.
    if (this.states.size > 10_000) this.states.delete(this.states.keys().next().value!);
  }
}
