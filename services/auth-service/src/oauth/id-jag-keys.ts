/**
 * The public keys of a trusted identity provider (docs/auth-service.md "Enterprise-managed
 * authorization"): inline, or its JWKS URL fetched through the guarded fetch (cimd-fetch.ts) and
 * kept a while, so a stream of assertions naming an issuer does not become a stream of fetches to
 * its host.
 */
import type { TrustedIssuer } from '@svc/accounts';
import { createLocalJWKSet, type JSONWebKeySet } from 'jose';

/** A JWKS URL's keys are kept 5 minutes: an identity provider's new key counts within that. */
export const ID_JAG_JWKS_CACHE_SECONDS = 300;
/** At most 1,000 JWKS URLs' keys are kept (5 issuers per workspace); the oldest goes first. */
export const ID_JAG_JWKS_CACHE_MAX = 1_000;

export type FetchLike = (url: string, init?: RequestInit) => Promise<Response>;
export type IssuerKeys = ReturnType<typeof createLocalJWKSet>;

/** Why an issuer's keys could not be had: a refusal, never a 500. */
export class IssuerKeysUnavailable extends Error {}

export function createIssuerKeys(fetch: FetchLike, now: () => number = Date.now) {
  const cache = new Map<string, { keys: IssuerKeys; until: number }>();

  async function fromUrl(uri: string): Promise<IssuerKeys> {
    const hit = cache.get(uri);
    if (hit && hit.until > now()) return hit.keys;
    let keys: IssuerKeys;
    try {
      const res = await fetch(uri, { headers: { accept: 'application/json' } });
      if (!res.ok) throw new Error(`status ${res.status}`);
      keys = createLocalJWKSet((await res.json()) as JSONWebKeySet);
    } catch (err) {
      throw new IssuerKeysUnavailable(err instanceof Error ? err.message : 'unreadable');
    }
    cache.delete(uri);
    if (cache.size >= ID_JAG_JWKS_CACHE_MAX) cache.delete(cache.keys().next().value as string);
    cache.set(uri, { keys, until: now() + ID_JAG_JWKS_CACHE_SECONDS * 1000 });
    return keys;
  }

  /** The keys an assertion of `trusted` is checked against. */
  return async function issuerKeys(trusted: Pick<TrustedIssuer, 'jwks' | 'jwksUri'>): Promise<IssuerKeys> {
    if (trusted.jwks) return createLocalJWKSet(trusted.jwks as JSONWebKeySet);
    if (!trusted.jwksUri) throw new IssuerKeysUnavailable('no keys');
    return fromUrl(trusted.jwksUri);
  };
}
