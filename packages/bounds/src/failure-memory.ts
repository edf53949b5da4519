/**
 * A URL whose fetch failed is refused again, without being fetched, for a short while: a JWKS URL
 * (a client's or a trusted issuer's) or a metadata document URL is named by every request of its
 * client, and oidc-provider caches a key set only once it was read, so a failing URL was fetched
 * again, with a lookup and a connection, by every request (docs/auth-service.md "Client ID
 * Metadata Documents").
 */
import { CimdFetchRefused, tenantOf, type GuardedInit } from './guarded-fetch.ts';
import { createTenantCache, type TenantCacheBounds } from './tenant-cache.ts';

/** How long a failed URL is refused without a fetch. */
export const FETCH_FAILURE_MEMORY_MS = 30_000;
/**
 * Failed URLs remembered at most: 1,000 in all, 100 of one tenant (the workspace, else the URL's
 * host: tenantOf); past either the oldest is forgotten first, so a tenant with many failing URLs
 * forgets its own, never another's (docs/security.md "Shared pools, per-tenant shares").
 */
export const FETCH_FAILURE_MEMORY: TenantCacheBounds = { entries: 1_000, perTenant: 100 };

type Fetch = (url: string | URL | Request, init?: GuardedInit) => Promise<Response>;

/**
 * `fetch`, remembering GET URLs whose fetch threw (refused, unreachable, too slow, too large) for
 * FETCH_FAILURE_MEMORY_MS. A refusal for a full share (`busy`) says nothing of the URL and is not
 * remembered. An answer with an error status is the caller's to keep (oidc-provider keeps a JWKS
 * URL's for 60 s).
 */
export function rememberFailures<F extends Fetch>(fetch: F, now: () => number = Date.now, bounds = FETCH_FAILURE_MEMORY): F {
  const failed = createTenantCache<{ until: number; err: unknown }>(bounds);
  const remembering = async (input: string | URL | Request, init?: GuardedInit): Promise<Response> => {
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    if (method !== 'GET') return fetch(input, init);
    const url = input instanceof Request ? input.url : String(input);
    const tenant = tenantOf(new URL(url), init);
    const hit = failed.get(tenant, url);
    if (hit && hit.until > now()) throw again(hit.err);
    failed.delete(tenant, url);
    try {
      return await fetch(input, init);
    } catch (err) {
      if (!(err instanceof CimdFetchRefused && err.reason === 'busy'))
        failed.set(tenant, url, { until: now() + FETCH_FAILURE_MEMORY_MS, err });
      throw err;
    }
  };
  return remembering as F;
}

/** The remembered failure as a fresh refusal that says it was remembered, keeping what a tenant may be told. */
function again(err: unknown): CimdFetchRefused {
  const detail = err instanceof Error ? err.message : String(err);
  const refused = err instanceof CimdFetchRefused ? err : null;
  return new CimdFetchRefused(
    `failed less than ${FETCH_FAILURE_MEMORY_MS / 1000} s ago, not fetched again: ${detail}`,
    refused?.tenantMessage,
    refused?.reason ?? 'other',
  );
}
