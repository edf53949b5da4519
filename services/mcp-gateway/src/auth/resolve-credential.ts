/**
 * Turns a presented credential into the caller it stands for at one endpoint, or the error
 * docs/contract.md "Errors" names. Malformed values (bad prefix, length or checksum) are refused
 * before Redis.
 */
import type { Accounts } from '@svc/accounts';
import { SLUG_PATTERN } from '@svc/accounts';
import { claimedKind, parseCredential } from '@svc/credentials';
import { apiKeyCaller } from './api-key-caller.ts';
import type { Target } from './caller.ts';
import { oauthCaller } from './oauth-caller.ts';
import type { OAuthTokenVerifier } from './oauth-types.ts';
import type { Resolution } from './resolution-cache.ts';
import { disabledKey, invalidKey, invalidToken, notFound } from './resolution-outcomes.ts';

/** What resolution reads: the accounts, the OAuth verifier (null: none) and whether rlm_ keys still work. */
export interface ResolverDeps {
  accounts: Accounts;
  oauth: OAuthTokenVerifier | null;
  legacyCredentials: boolean;
  now?: () => number;
}

/**
 * The resolver: the slug checked, the value parsed, then the OAuth path (oauth-caller.ts) or the
 * key path, whose record is looked up and checked for status here and read by api-key-caller.ts.
 */
export function createResolver(deps: ResolverDeps) {
  const now = deps.now ?? Date.now;
  const fromOAuth = oauthCaller(deps);
  const fromKey = apiKeyCaller(deps.accounts);

  /** The caller a credential value stands for at `target`. */
  return async function resolve(value: string, target: Target): Promise<Resolution> {
    // A slug is checked before any Redis key is built from it: `proj:keys` would otherwise name
    // another key family (docs/redis-schema.md).
    if (target.kind !== 'account' && !SLUG_PATTERN.test(target.slug)) return notFound(`${target.kind} ${target.slug.slice(0, 80)}`);
    const parsed = parseCredential(value);
    if (!parsed) {
      const kind = claimedKind(value);
      return kind === 'access_token' || kind === 'refresh_token' ? invalidToken('malformed token') : invalidKey('malformed key');
    }
    if (parsed.kind === 'refresh_token') return invalidToken('a refresh token is not an access token');
    if (parsed.kind === 'access_token') return fromOAuth(value, target);
    if (parsed.legacy && !deps.legacyCredentials)
      return invalidKey('legacy credentials are turned off', 'Legacy rlm_ keys are no longer accepted: create a new svc- key.');
    const rec = await deps.accounts.keys.findByValue(value);
    if (!rec) return invalidKey('unknown key');
    if (rec.revoked) return invalidKey(`key ${rec.id} is revoked`);
    if (rec.expiresAt !== null && rec.expiresAt <= now()) return invalidKey(`key ${rec.id} expired`);
    if (rec.disabled) return disabledKey(rec.id);
    return fromKey(parsed, rec, target);
  };
}

export type Resolver = ReturnType<typeof createResolver>;
