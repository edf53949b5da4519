/** The authentication step: the presented credential, through the cache, to a caller or an error. */
import type { IncomingHttpHeaders } from 'node:http';
import { oidcDigest } from '@svc/accounts';
import { claimedKind, hashCredential } from '@svc/credentials';
import { SvcError } from '@svc/errors';
import type { ResolvedCaller, Target } from './caller.ts';
import { credentialFrom } from './credentials-from-request.ts';
import type { Resolver } from './resolve-credential.ts';
import { dependencies, type ResolutionCache } from './resolution-cache.ts';

export interface AuthenticateDeps {
  resolve: Resolver;
  cache: ResolutionCache;
  pepper: string;
  onCache?: (hit: boolean) => void;
  now?: () => number;
}

export type Authenticate = (headers: IncomingHttpHeaders, target: Target) => Promise<ResolvedCaller>;

/** Throws missing_authentication, invalid_api_key, invalid_token, not_found or service_unavailable. */
export function createAuthenticate(deps: AuthenticateDeps): Authenticate {
  const now = deps.now ?? Date.now;
  return async (headers, target) => {
    const presented = credentialFrom(headers);
    if (!presented || presented.value === '') throw new SvcError('missing_authentication');
    const hash = hashCredential(presented.value, deps.pepper);
    const cacheKey = `${hash}|${target.kind}:${target.slug}`;
    let resolution = deps.cache.get(cacheKey);
    deps.onCache?.(resolution !== undefined);
    if (!resolution) {
      const generation = deps.cache.currentGeneration;
      try {
        resolution = await deps.resolve(presented.value, target);
      } catch (err) {
        throw new SvcError('service_unavailable', {
          message: 'Service temporarily unavailable: the credential store cannot be reached',
          detail: String(err),
        });
      }
      // An access token's record is announced by the digest of its value (the auth-service's adapter).
      const digest = claimedKind(presented.value) === 'access_token' ? oidcDigest(presented.value) : null;
      deps.cache.set(cacheKey, resolution, generation, dependencies(hash, digest, target, resolution));
    }
    if (!resolution.ok) throw resolution.error;
    const { caller } = resolution;
    if (caller.expiresAt !== null && caller.expiresAt <= now()) {
      throw new SvcError(caller.keyHash ? 'invalid_api_key' : 'invalid_token', { detail: 'expired' });
    }
    return caller;
  };
}
