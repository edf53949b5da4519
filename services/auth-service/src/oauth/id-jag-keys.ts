/**
 * The public keys of a trusted identity provider (docs/auth-service.md "Enterprise-managed
 * authorization"): inline, or its JWKS URL fetched through the guarded fetch (cimd-fetch.ts) and
 * kept a while, so a stream of assertions naming an issuer does not become a stream of fetches to
 * its host. A URL that failed is not fetched again for ID_JAG_JWKS_FAILURE_SECONDS either: every
 * assertion naming a broken issuer would otherwise be a fetch.
 */
import type { TrustedIssuer } from '@svc/accounts';
import { createTenantCache, type TenantCacheBounds } from '@svc/bounds';
import { CimdFetchRefused, tenantOf } from '@svc/bounds/guarded-fetch.ts';
import { createLocalJWKSet, type JSONWebKeySet } from 'jose';

/** A JWKS URL's keys are kept 5 minutes: an identity provider's new key counts within that. */
export const ID_JAG_JWKS_CACHE_SECONDS = 300;
/** A JWKS URL that failed is refused for 30 s without a fetch: an issuer's repaired URL counts within that. */
export const ID_JAG_JWKS_FAILURE_SECONDS = 30;
/**
 * At most 1,000 JWKS URLs' keys (or failures) are kept, 10 of one workspace (it trusts at most 5
 * issuers); past either the oldest goes first, so one tenant's many workspaces or URLs never push
 * out another's keys (docs/security.md "Shared pools, per-tenant shares").
 */
export const ID_JAG_JWKS_CACHE: TenantCacheBounds = { entries: 1_000, perTenant: 10 };

/**
 * A JWKS document is read up to 64 KiB, past the guarded fetch's 8 KiB for metadata documents:
 * real issuers' sets carry certificate chains (`x5c`) for several keys (GitHub Actions' does).
 */
export const ISSUER_JWKS_MAX_BYTES = 64 * 1024;

/** The guarded fetch (@svc/bounds guarded-fetch.ts); `tenant` is the workspace whose share of its pools a fetch uses. */
export type FetchLike = (url: string, init?: RequestInit & { tenant?: string }) => Promise<Response>;
export type IssuerKeys = ReturnType<typeof createLocalJWKSet>;

/** Why an issuer's keys could not be had: a refusal, never a 500. */
export class IssuerKeysUnavailable extends Error {}

export function createIssuerKeys(fetch: FetchLike, now: () => number = Date.now) {
  /** A URL's keys, or why they could not be had, until `until`. */
  const cache = createTenantCache<{ keys: IssuerKeys | null; failure: string; until: number }>(ID_JAG_JWKS_CACHE);

  async function fromUrl(uri: string, tenant: string | undefined): Promise<IssuerKeys> {
    // Kept in the share of whoever the fetch is for: the workspace, else the URL's host.
    const owner = tenantOf(new URL(uri), tenant ? { tenant } : undefined);
    const keep = (keys: IssuerKeys | null, failure: string, seconds: number) =>
      cache.set(owner, uri, { keys, failure, until: now() + seconds * 1000 });
    const hit = cache.get(owner, uri);
    if (hit && hit.until > now()) {
      if (hit.keys) return hit.keys;
      throw new IssuerKeysUnavailable(hit.failure);
    }
    let keys: IssuerKeys;
    try {
      const res = await fetch(uri, { headers: { accept: 'application/json' }, ...(tenant ? { tenant } : {}) });
      if (!res.ok) throw new Error(`status ${res.status}`);
      keys = createLocalJWKSet((await res.json()) as JSONWebKeySet);
    } catch (err) {
      const failure = err instanceof Error ? err.message : 'unreadable';
      // A full share of the outbound pools says nothing of the URL: asked again next time.
      if (!(err instanceof CimdFetchRefused && err.reason === 'busy')) keep(null, failure, ID_JAG_JWKS_FAILURE_SECONDS);
      throw new IssuerKeysUnavailable(failure);
    }
    keep(keys, '', ID_JAG_JWKS_CACHE_SECONDS);
    return keys;
  }

  /** The keys an assertion of `trusted` is checked against; `tenant` is the workspace trusting it. */
  return async function issuerKeys(trusted: Pick<TrustedIssuer, 'jwks' | 'jwksUri'>, tenant?: string): Promise<IssuerKeys> {
    if (trusted.jwks) return createLocalJWKSet(trusted.jwks as JSONWebKeySet);
    if (!trusted.jwksUri) throw new IssuerKeysUnavailable('no keys');
    return fromUrl(trusted.jwksUri, tenant);
  };
}
