/**
 * The gateway's authentication as its routes use it (docs/redis-schema.md "Invalidation",
 * docs/contract.md "Credentials"): a credential resolved once (resolve-credential.ts), its answer
 * kept in the in-process cache, and each key's and person's grant's use noted for its last-used time.
 */
import type { Accounts } from '@svc/accounts';
import type { Config } from '@svc/config';
import type { Logger } from '@svc/logger';
import { createAuthenticate, type Authenticate } from './authenticate.ts';
import type { ResolvedCaller } from './caller.ts';
import { LastUsedRecorder } from './last-used.ts';
import type { OAuthTokenVerifier } from './oauth-types.ts';
import { ResolutionCache } from './resolution-cache.ts';
import { createResolver } from './resolve-credential.ts';

/** What authentication reads. */
export interface GatewayAuthenticationDeps {
  config: Pick<Config, 'authCacheTtlMs' | 'legacyCredentials' | 'keyPepper'>;
  accounts: Accounts;
  oauth: OAuthTokenVerifier | null;
  logger: Logger;
  onCache: (hit: boolean) => void;
  now: () => number;
}

/** The authentication step's function, the cache it answers from and the last-used recorder it feeds. */
export function gatewayAuthentication(deps: GatewayAuthenticationDeps) {
  const { config, now } = deps;
  const cache = new ResolutionCache(config.authCacheTtlMs, now);
  const lastUsed = new LastUsedRecorder(deps.accounts, deps.logger);
  const resolve = createResolver({ accounts: deps.accounts, oauth: deps.oauth, legacyCredentials: config.legacyCredentials, now });
  const authenticate = createAuthenticate({ resolve, cache, pepper: config.keyPepper, onCache: deps.onCache, now });
  const record = (caller: ResolvedCaller) => {
    if (caller.keyHash) lastUsed.record(caller.keyHash);
    // A person's OAuth token: its grant (`session`) is one of their apps (docs/management.md "Authorized apps").
    else if (caller.clientId && caller.type === 'user') lastUsed.recordGrant(caller.id, caller.session);
    return caller;
  };
  /** A cached answer stays synchronous: no promise where the cache answered. */
  const authenticateAndRecord: Authenticate = (headers, target) => {
    const caller = authenticate(headers, target);
    return caller instanceof Promise ? caller.then(record) : record(caller);
  };
  return { cache, lastUsed, authenticate: authenticateAndRecord };
}
