/**
 * Fixed-window attempt counters and per-account backoff in Redis for brute-force protection of
 * sign-in, sign-up, password-reset requests, code entry and client registration (docs/auth-service.md "Sign-in protections"; docs/contract.md
 * "Device authorization response": wrong code entries are rate limited).
 *
 * An attempt is checked and counted in one Lua script (docs/security.md "Guessing"): reading the
 * counter and incrementing it in two steps let 58 of 60 concurrent wrong passwords through a limit
 * of 5. Steps that count only failures reserve a slot first and give it back (`refund`) when the
 * attempt succeeded, so a person who gets it right is never slowed down.
 */
import { createHash } from 'node:crypto';
import type { Redis } from '@svc/accounts';
import { OK } from '../provider/redis-keys.ts';

export interface ThrottleRule {
  /** Attempts allowed per window. */
  limit: number;
  windowSeconds: number;
}

/**
 * Exponential backoff of one account's failures from every source together: the `freeFailures`-th
 * failure makes the next attempt wait `firstWaitSeconds`, each further one twice as long as the
 * one before, up to `maxWaitSeconds`; the count is forgotten
 * `memorySeconds` after the last failure, and at once on a success or a password reset.
 */
export interface BackoffRule {
  freeFailures: number;
  firstWaitSeconds: number;
  maxWaitSeconds: number;
  memorySeconds: number;
}

/**
 * Every bucket, keyed by what it protects (docs/auth-service.md "Sign-in protections"): an
 * account's buckets stop guessing at one account from many addresses; an address's buckets, with
 * larger budgets, stop one address from spraying many accounts without locking the others behind
 * that address out. The source address is the one TRUST_PROXY resolves (docs/operations.md "Proxies").
 */
export interface ThrottleLimits {
  /** Failed sign-ins per source address, whatever the account (password spraying). */
  signInPerIp: ThrottleRule;
  /** Failed sign-ins per account and source together (one address guessing one account). */
  signInPerAccount: ThrottleRule;
  /** Failed sign-ins per account from every source (guessing spread over many addresses). */
  signInAccountBackoff: BackoffRule;
  /** Sign-up attempts per source address. */
  signUpPerIp: ThrottleRule;
  /** Sign-up attempts per email address, from every source (each may send a confirmation mail). */
  signUpPerEmail: ThrottleRule;
  /** Password-reset requests per source address. */
  resetPerIp: ThrottleRule;
  /** Password-reset requests per email address, from every source (each may send a mail). */
  resetPerEmail: ThrottleRule;
  /** Unknown user codes per source, at POST /device and GET /device?code= alike. */
  codeEntryPerIp: ThrottleRule;
  /** Every dynamic client registration counts (each stores a client record). */
  registrationPerIp: ThrottleRule;
}

/**
 * codeEntryPerIp: 10 unknown codes per 30 minutes (the code's lifetime); docs/security.md
 * "User-code guessing" computes why this keeps the chance of hitting a pending code below 1e-7.
 * signInAccountBackoff: after 10 failures 1 s, 2 s, 4 s ... up to 15 min between attempts, so
 * guessing from any number of addresses gets about 100 tries a day, and the owner is slowed, never
 * shut out for longer than 15 min (and a password reset ends the wait).
 */
export const DEFAULT_LIMITS: ThrottleLimits = {
  signInPerIp: { limit: 100, windowSeconds: 900 },
  signInPerAccount: { limit: 5, windowSeconds: 900 },
  signInAccountBackoff: { freeFailures: 10, firstWaitSeconds: 1, maxWaitSeconds: 900, memorySeconds: 86_400 },
  signUpPerIp: { limit: 20, windowSeconds: 3600 },
  signUpPerEmail: { limit: 3, windowSeconds: 3600 },
  resetPerIp: { limit: 20, windowSeconds: 3600 },
  resetPerEmail: { limit: 3, windowSeconds: 3600 },
  codeEntryPerIp: { limit: 10, windowSeconds: 1800 },
  registrationPerIp: { limit: 30, windowSeconds: 3600 },
};

export interface Throttle {
  /**
   * Checks and counts one attempt atomically: 0 when it is admitted (and counted), otherwise the
   * seconds until the subject may try again (and nothing is counted).
   */
  attempt(scope: string, subject: string, rule: ThrottleRule): Promise<number>;
  /**
   * Checks one attempt against the subject's backoff and counts it as a failure atomically: 0 when
   * admitted, otherwise the seconds to wait. A success is recorded with `reset`.
   */
  backoff(scope: string, subject: string, rule: BackoffRule): Promise<number>;
  /** Gives back one counted attempt (it succeeded, and only failures count). */
  refund(scope: string, subject: string): Promise<void>;
  reset(scope: string, subject: string): Promise<void>;
}

/** KEYS[1] counter; ARGV limit, window. Returns 0 (counted) or the seconds left in the window. */
const ATTEMPT = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n >= tonumber(ARGV[1]) then
  local ttl = redis.call('TTL', KEYS[1])
  if ttl < 0 then redis.call('EXPIRE', KEYS[1], ARGV[2]); ttl = tonumber(ARGV[2]) end
  return ttl
end
n = redis.call('INCR', KEYS[1])
if n == 1 or redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

/** KEYS[1] counter: one attempt given back, never below zero, the window kept. */
const REFUND = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n > 0 then redis.call('DECR', KEYS[1]) end
return 0
`;

/**
 * KEYS[1] backoff state {n failures, until (ms)}; ARGV now (ms), free failures, first wait (s), max
 * wait (s), memory (s). Returns 0 (admitted, counted as a failure) or the seconds left to wait.
 */
const BACKOFF = `
local h = redis.call('HMGET', KEYS[1], 'n', 'until')
local n = tonumber(h[1] or '0')
local now = tonumber(ARGV[1])
local untilMs = tonumber(h[2] or '0')
if untilMs > now then return math.ceil((untilMs - now) / 1000) end
n = n + 1
local wait = 0
if n >= tonumber(ARGV[2]) then wait = math.min(tonumber(ARGV[3]) * 2 ^ (n - tonumber(ARGV[2])), tonumber(ARGV[4])) end
redis.call('HSET', KEYS[1], 'n', n, 'until', now + wait * 1000)
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 0
`;

/** Runs a script by its SHA, sending the source once when Redis does not know it (NOSCRIPT). */
export async function runScript(redis: Redis, source: string, keys: string[], args: (string | number)[]): Promise<unknown> {
  const sha = SHAS.get(source) ?? createHash('sha1').update(source).digest('hex');
  SHAS.set(source, sha);
  try {
    return await redis.evalsha(sha, keys.length, ...keys, ...args);
  } catch (err) {
    if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
    return redis.eval(source, keys.length, ...keys, ...args);
  }
}
const SHAS = new Map<string, string>();

export function createThrottle(redis: Redis, now: () => number = Date.now): Throttle {
  return {
    async backoff(scope, subject, rule) {
      const args = [now(), rule.freeFailures, rule.firstWaitSeconds, rule.maxWaitSeconds, rule.memorySeconds];
      return Number(await runScript(redis, BACKOFF, [OK.throttle(scope, subject)], args));
    },
    async attempt(scope, subject, rule) {
      return Number(await runScript(redis, ATTEMPT, [OK.throttle(scope, subject)], [rule.limit, rule.windowSeconds]));
    },
    async refund(scope, subject) {
      await runScript(redis, REFUND, [OK.throttle(scope, subject)], []);
    },
    async reset(scope, subject) {
      await redis.del(OK.throttle(scope, subject));
    },
  };
}
