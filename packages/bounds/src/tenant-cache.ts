/**
 * A cache every tenant shares, each holding at most its share of the entries (docs/security.md
 * "Shared pools, per-tenant shares"). A tenant at its share makes room by dropping its own oldest
 * entry; only when the whole cache is full does a new entry drop the oldest of all. So however
 * many entries one tenant makes, another tenant's entries are dropped by it only once the shares
 * of the tenants using the cache add up to more than the whole: with `entries / perTenant`
 * tenants or fewer, never.
 *
 * Entries are told apart by tenant and key together: two tenants caching the same key each hold
 * their own entry, counted in their own share.
 */

/** The bounds of one shared cache. */
export interface TenantCacheBounds {
  /** Entries in all. */
  entries: number;
  /** Entries of one tenant. */
  perTenant: number;
}

export interface TenantCache<V> {
  get(tenant: string, key: string): V | undefined;
  /** Sets (or replaces) an entry, dropping the tenant's oldest at its share, then the oldest of all when full. */
  set(tenant: string, key: string, value: V): void;
  delete(tenant: string, key: string): void;
  /** Every entry, oldest first, as [tenant, key, value]; deleting while walking is safe. */
  entries(): IterableIterator<[string, string, V]>;
  /** Entries held now: by `tenant`, or in all. */
  held(tenant?: string): number;
}

interface Entry<V> {
  tenant: string;
  key: string;
  value: V;
}

export function createTenantCache<V>(bounds: TenantCacheBounds): TenantCache<V> {
  // One Map in insertion order for the oldest of all, and one per tenant for its own oldest: both
  // keyed by the tenant and the key joined (a tenant names neither with a NUL).
  const all = new Map<string, Entry<V>>();
  const byTenant = new Map<string, Set<string>>();
  const id = (tenant: string, key: string) => `${tenant}\0${key}`;

  function drop(entryId: string): void {
    const entry = all.get(entryId);
    if (!entry) return;
    all.delete(entryId);
    const own = byTenant.get(entry.tenant)!;
    own.delete(entryId);
    if (own.size === 0) byTenant.delete(entry.tenant);
  }

  return {
    get: (tenant, key) => all.get(id(tenant, key))?.value,
    set(tenant, key, value) {
      const entryId = id(tenant, key);
      drop(entryId);
      if (bounds.entries <= 0 || bounds.perTenant <= 0) return;
      const own = byTenant.get(tenant);
      if (own && own.size >= bounds.perTenant) drop(own.values().next().value!);
      if (all.size >= bounds.entries) drop(all.keys().next().value!);
      all.set(entryId, { tenant, key, value });
      let mine = byTenant.get(tenant);
      if (!mine) byTenant.set(tenant, (mine = new Set()));
      mine.add(entryId);
    },
    delete: (tenant, key) => drop(id(tenant, key)),
    *entries() {
      for (const e of all.values()) yield [e.tenant, e.key, e.value];
    },
    held: (tenant) => (tenant === undefined ? all.size : (byTenant.get(tenant)?.size ?? 0)),
  };
}
