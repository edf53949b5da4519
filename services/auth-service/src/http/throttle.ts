/**
 * The auth-service's buckets on the one limiter (`@svc/limits`, docs/operations.md "Rate
 * limits"): sign-in, sign-up, password-reset requests, code entry, client registration and client
 * metadata fetches (docs/auth-service.md "Sign-in protections"; docs/contract.md "Device
 * authorization response": wrong code entries are rate limited). Their numbers are the table's
 * (`BUCKETS`); their counters live under `svc:oidc:throttle:` (docs/redis-schema.md).
 */
import type { Redis } from '@svc/accounts';
import { BUCKETS, createLimiter, type BackoffRule, type Limiter, type WindowRule } from '@svc/limits';
import { OK } from '../store/redis-keys.ts';

export type { BackoffRule };
/** Attempts allowed per window (`@svc/limits` WindowRule). */
export type ThrottleRule = WindowRule;

/**
 * Every bucket, keyed by what it protects (docs/auth-service.md "Sign-in protections"): an
 * account's buckets stop guessing at one account from many addresses; an address's buckets, with
 * larger budgets, stop one address from spraying many accounts without locking the others behind
 * that address out. The source address is the one TRUST_PROXY resolves (docs/operations.md "Proxies").
 */
export interface ThrottleLimits {
  signInPerIp: ThrottleRule;
  signInPerAccount: ThrottleRule;
  signInAccountBackoff: BackoffRule;
  signUpPerIp: ThrottleRule;
  signUpPerEmail: ThrottleRule;
  resetPerIp: ThrottleRule;
  resetPerEmail: ThrottleRule;
  codeEntryPerIp: ThrottleRule;
  registrationPerIp: ThrottleRule;
  secondFactorPerAccount: ThrottleRule;
}

/** The table's numbers (`@svc/limits` BUCKETS); tests may override some (createApp's `limits`). */
export const DEFAULT_LIMITS: ThrottleLimits = {
  signInPerIp: BUCKETS.signInPerIp,
  signInPerAccount: BUCKETS.signInPerAccount,
  signInAccountBackoff: BUCKETS.signInAccountBackoff,
  signUpPerIp: BUCKETS.signUpPerIp,
  signUpPerEmail: BUCKETS.signUpPerEmail,
  resetPerIp: BUCKETS.resetPerIp,
  resetPerEmail: BUCKETS.resetPerEmail,
  codeEntryPerIp: BUCKETS.codeEntryPerIp,
  registrationPerIp: BUCKETS.registrationPerIp,
  secondFactorPerAccount: BUCKETS.secondFactorPerAccount,
};

/** The scope of the sign-in address budget (signInPerIp), shared by the password and passkey sign-ins. */
export const SIGN_IN_ADDRESS_SCOPE = 'signin-ip';

/** Attempts, backoffs and refunds of one scope and subject (`@svc/limits` Limiter). */
export type Throttle = Limiter;

export function createThrottle(redis: Redis, now: () => number = Date.now): Throttle {
  return createLimiter(redis, { key: OK.throttle, now });
}
