/**
 * A breaker per upstream in each gateway (docs/upstream-servers.md "Failures"): after
 * UPSTREAM_LIMITS.breaker.failures failed calls in a row, calls are refused at once for `openMs`,
 * so an upstream that hangs holds neither the gateway's connections nor its callers; then one call
 * is let through, and its outcome closes or opens the breaker again.
 */
import { createTenantCache, type TenantCache, type TenantCacheBounds } from '@svc/bounds';
import { UPSTREAM_LIMITS } from './limits.ts';

interface State {
  failures: number;
  openUntil: number;
  trying: boolean;
}

/**
 * The states of failing upstreams only (a success drops its state), each kept under the workspace
 * whose upstream it is: within that workspace's share of UPSTREAM_LIMITS.breakerStates
 * (docs/security.md "Shared pools, per-tenant shares"), so a workspace with many failing
 * upstreams drops its own oldest states, never another workspace's open breakers.
 */
export class Breakers {
  private readonly states: TenantCache<State>;
  private readonly now: () => number;
  constructor(now: () => number = Date.now, bounds: TenantCacheBounds = UPSTREAM_LIMITS.breakerStates) {
    this.now = now;
    this.states = createTenantCache(bounds);
  }

  /** States held now: of `workspace`, or in all. */
  held(workspace?: string): number {
    return this.states.held(workspace);
  }

  /** Whether a call to `key` of `workspace` may go now (a half-open breaker lets one through). */
  allow(workspace: string, key: string): boolean {
    const s = this.states.get(workspace, key);
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
  release(workspace: string, key: string): void {
    const s = this.states.get(workspace, key);
    if (s) s.trying = false;
  }

  /** A call's outcome: a success closes the breaker, a failure counts towards opening it. */
  record(workspace: string, key: string, ok: boolean): void {
    if (ok) {
      this.states.delete(workspace, key);
      return;
    }
    const s = this.states.get(workspace, key) ?? { failures: 0, openUntil: 0, trying: false };
    s.failures++;
    s.trying = false;
    if (s.failures >= UPSTREAM_LIMITS.breaker.failures) s.openUntil = this.now() + UPSTREAM_LIMITS.breaker.openMs;
    // Bounded: an upstream removed leaves its state behind; the oldest states go first.
    this.states.set(workspace, key, s);
  }
}
