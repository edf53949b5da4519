/**
 * Fixed-window attempt counters in Redis for brute-force protection of sign-in and code entry
 * (docs/auth-service.md "Sign-in protections"; docs/contract.md "Device authorization response":
 * wrong code entries are rate limited). Only failures are counted, so a person who gets it right
 * is never slowed down.
 */
import type { Redis } from '@svc/accounts';
import { OK } from '../provider/redis-keys.ts';

export interface ThrottleRule {
  /** Failures allowed per window. */
  limit: number;
  windowSeconds: number;
}

export interface ThrottleLimits {
  signInPerIp: ThrottleRule;
  signInPerAccount: ThrottleRule;
  codeEntryPerIp: ThrottleRule;
  /** Every dynamic client registration counts (each stores a client record). */
  registrationPerIp: ThrottleRule;
}

export const DEFAULT_LIMITS: ThrottleLimits = {
  signInPerIp: { limit: 20, windowSeconds: 900 },
  signInPerAccount: { limit: 5, windowSeconds: 900 },
  codeEntryPerIp: { limit: 10, windowSeconds: 600 },
  registrationPerIp: { limit: 30, windowSeconds: 3600 },
};

export interface Throttle {
  /** Seconds until the subject may try again, or 0 when it may try now. */
  blockedFor(scope: string, subject: string, rule: ThrottleRule): Promise<number>;
  fail(scope: string, subject: string, rule: ThrottleRule): Promise<void>;
  reset(scope: string, subject: string): Promise<void>;
}

export function createThrottle(redis: Redis): Throttle {
  return {
    async blockedFor(scope, subject, rule) {
      const key = OK.throttle(scope, subject);
      const n = Number((await redis.get(key)) ?? 0);
      if (n < rule.limit) return 0;
      return Math.max(1, await redis.ttl(key));
    },
    async fail(scope, subject, rule) {
      const key = OK.throttle(scope, subject);
      const n = await redis.incr(key);
      if (n === 1) await redis.expire(key, rule.windowSeconds);
    },
    async reset(scope, subject) {
      await redis.del(OK.throttle(scope, subject));
    },
  };
}
