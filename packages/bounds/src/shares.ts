/**
 * A pool every tenant shares, each holding at most its share (outbound-bounds.ts ShareBounds). A
 * tenant past its share waits behind its own earlier requests only, never another tenant's; past
 * its waiting bound, or when the whole pool is held, a request is refused at once.
 */
import type { ShareBounds } from './outbound-bounds.ts';

/** Gives the place back; calling it again does nothing. */
export type Release = () => void;

export interface Shares {
  /** A place of `tenant`'s share, or null when refused (or `signal` aborted while waiting). */
  take(tenant: string, signal?: AbortSignal): Promise<Release | null>;
  /** Places held now: by `tenant`, or by every tenant. */
  held(tenant?: string): number;
}

interface Tenant {
  held: number;
  /** Waiting requests in arrival order (a Set keeps insertion order). */
  waiting: Set<(release: Release) => void>;
}

export function createShares(bounds: ShareBounds): Shares {
  const tenants = new Map<string, Tenant>();
  let held = 0;

  function releaser(key: string, t: Tenant): Release {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      // The place goes to the tenant's next waiter: the lane's count does not change.
      const next = t.waiting.values().next();
      if (!next.done) {
        t.waiting.delete(next.value);
        next.value(releaser(key, t));
        return;
      }
      t.held--;
      held--;
      if (t.held === 0) tenants.delete(key);
    };
  }

  function wait(t: Tenant, signal: AbortSignal | undefined): Promise<Release | null> {
    return new Promise((ok) => {
      const onAbort = () => {
        t.waiting.delete(grant);
        ok(null);
      };
      const grant = (release: Release) => {
        signal?.removeEventListener('abort', onAbort);
        ok(release);
      };
      t.waiting.add(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  return {
    take(key, signal) {
      if (signal?.aborted) return Promise.resolve(null);
      const t = tenants.get(key);
      if (t && t.held >= bounds.perTenant) {
        return t.waiting.size >= bounds.waitingPerTenant ? Promise.resolve(null) : wait(t, signal);
      }
      if (held >= bounds.perLane) return Promise.resolve(null);
      const tenant = t ?? { held: 0, waiting: new Set() };
      tenants.set(key, tenant);
      tenant.held++;
      held++;
      return Promise.resolve(releaser(key, tenant));
    },
    held: (key) => (key === undefined ? held : (tenants.get(key)?.held ?? 0)),
  };
}
