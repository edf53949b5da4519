/**
 * What OpenID Connect Back-Channel Logout 1.0 needs kept (docs/auth-service.md "Logout from the
 * company's provider"): which svc account an SSO sign-in's provider session (`sid`) belongs to, and
 * each logout token's `jti` claimed once. Keys of docs/redis-schema.md "auth-service (single sign-on)".
 */
import { createHash } from 'node:crypto';
import type { Redis } from '@svc/accounts';
import { SSO_SESSION_MAX_SECONDS } from './bounds.ts';

/** A logout token is accepted at most this long after its `iat` (and its `jti` remembered as long). */
export const LOGOUT_TOKEN_MAX_AGE_SECONDS = 600;

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** The name of a provider session across issuers: the issuer and its `sid` together (Back-Channel Logout 1.0 §2.1). */
export const providerSession = (issuer: string, sid: string) => sha(`${issuer}\n${sid}`);

const LK = {
  /** A provider session -> the svc account it signed in, for SSO_SESSION_MAX_SECONDS. */
  sid: (session: string) => `svc:sso:sid:${session}`,
  /** A logout token's jti, by SHA-256 of issuer and jti: SET NX, LOGOUT_TOKEN_MAX_AGE_SECONDS. */
  jti: (digest: string) => `svc:sso:logout-jti:${digest}`,
};

export function createLogoutStore(redis: Redis) {
  return {
    /** Records that the provider session `sid` of `issuer` signed in `userId`. */
    async signedIn(issuer: string, sid: string, userId: string): Promise<void> {
      await redis.set(LK.sid(providerSession(issuer, sid)), userId, 'EX', SSO_SESSION_MAX_SECONDS);
    },
    async userOf(issuer: string, sid: string): Promise<string | null> {
      return redis.get(LK.sid(providerSession(issuer, sid)));
    },
    /** True the first time a token's jti is seen (one atomic SET NX): a replayed logout token is refused. */
    async claimJti(issuer: string, jti: string): Promise<boolean> {
      return (await redis.set(LK.jti(sha(`${issuer}\n${jti}`)), '1', 'EX', LOGOUT_TOKEN_MAX_AGE_SECONDS, 'NX')) === 'OK';
    },
  };
}

export type LogoutStore = ReturnType<typeof createLogoutStore>;
