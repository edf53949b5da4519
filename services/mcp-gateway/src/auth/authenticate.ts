/** The authentication step: the presented credential, through the cache, to a caller or an error. */
import { hash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { oidcDigest } from '@svc/accounts';
import { claimedKind, hashCredential } from '@svc/credentials';
import { SvcError } from '@svc/errors';
import type { ResolvedCaller, Target } from './caller.ts';
import { credentialFrom } from './credentials-from-request.ts';
import type { Resolver } from './resolve-credential.ts';
import { dependencies, type Resolution, type ResolutionCache } from './resolution-cache.ts';

export interface AuthenticateDeps {
  resolve: Resolver;
  cache: ResolutionCache;
  pepper: string;
  onCache?: (hit: boolean) => void;
  now?: () => number;
}

/** A cached credential answers at once (no promise, no microtask turn); a miss goes to Redis. */
export type Authenticate = (headers: IncomingHttpHeaders, target: Target) => ResolvedCaller | Promise<ResolvedCaller>;

/**
 * The in-process cache's key for a presented credential: an unkeyed SHA-256 of its value (one
 * call, a fifth of the HMAC's cost), so a hit never computes the HMAC. The HMAC under which Redis
 * stores the credential, and by which invalidation messages name it, is computed on a miss only
 * (docs/redis-schema.md "Invalidation"). Credentials carry 256 bits of randomness, so the
 * unkeyed digest reveals nothing a pepper would protect; it never leaves the process.
 */
export const cacheKeyOf = (value: string, target: Pick<Target, 'kind' | 'slug'>) =>
  `${hash('sha256', value)}|${target.kind}:${target.slug}`;

/** Throws missing_authentication, invalid_api_key, invalid_token, not_found or service_unavailable. */
export function createAuthenticate(deps: AuthenticateDeps): Authenticate {
  const now = deps.now ?? Date.now;
  const admitted = (resolution: Resolution): ResolvedCaller => {
    if (!resolution.ok) throw resolution.error;
    const { caller } = resolution;
    if (caller.expiresAt !== null && caller.expiresAt <= now()) {
      throw new SvcError(caller.keyHash ? 'invalid_api_key' : 'invalid_token', { detail: 'expired' });
    }
    return caller;
  };
  const lookUp = async (value: string, target: Target, cacheKey: string): Promise<ResolvedCaller> => {
    const generation = deps.cache.currentGeneration;
    let resolution: Resolution;
    try {
      resolution = await deps.resolve(value, target);
    } catch (err) {
      throw new SvcError('service_unavailable', {
        message: 'Service temporarily unavailable: the credential store cannot be reached',
        detail: String(err),
      });
    }
    // An access token's record is announced by the digest of its value (the auth-service's adapter).
    const digest = claimedKind(value) === 'access_token' ? oidcDigest(value) : null;
    // A key's record announces changes under its own hash (its address), which for a key re-hashed
    // under a new pepper is not the hash of its value (docs/operations.md "Rotating the key pepper").
    const address = resolution.ok && resolution.caller.keyHash ? resolution.caller.keyHash : hashCredential(value, deps.pepper);
    const tags = dependencies(address, digest, target, resolution);
    deps.cache.set(cacheKey, resolution, generation, tags);
    return admitted(resolution);
  };
  return (headers, target) => {
    const presented = credentialFrom(headers);
    if (!presented || presented.value === '') throw new SvcError('missing_authentication');
    const cacheKey = cacheKeyOf(presented.value, target);
    const cached = deps.cache.get(cacheKey);
    deps.onCache?.(cached !== undefined);
    return cached ? admitted(cached) : lookUp(presented.value, target, cacheKey);
  };
}
