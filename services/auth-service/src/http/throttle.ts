/**
 * Fixed-window attempt counters in Redis for brute-force protection of sign-in, sign-up, code
 * entry and client registration (docs/auth-service.md "Sign-in protections"; docs/contract.md
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

export interface ThrottleLimits {
  signInPerIp: ThrottleRule;
  /** Failed sign-ins per account and source together (a stranger never locks the owner out). */
  signInPerAccount: ThrottleRule;
  /** Unknown user codes per source, at POST /device and GET /device?code= alike. */
  codeEntryPerIp: ThrottleRule;
  /** Every dynamic client registration counts (each stores a client record). */
  registrationPerIp: ThrottleRule;
}

/**
 * codeEntryPerIp: 10 unknown codes per 30 minutes (the code's lifetime); docs/security.md
 * "User-code guessing" computes why this keeps the chance of hitting a pending code below 1e-7.
 */
export const DEFAULT_LIMITS: ThrottleLimits = {
  signInPerIp: { limit: 20, windowSeconds: 900 },
  signInPerAccount: { limit: 5, windowSeconds: 900 },
  codeEntryPerIp: { limit: 10, windowSeconds: 1800 },
  registrationPerIp: { limit: 30, windowSeconds: 3600 },
};

export interface Throttle {
  /**
   * Checks and counts one attempt atomically: 0 when it is admitted (and counted), otherwise the
   * seconds until the subject may try again (and nothing is counted).
   */
  attempt(scope: string, subject: string, rule: ThrottleRule): Promise<number>;
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

export function createThrottle(redis: Redis): Throttle {
  return {
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
