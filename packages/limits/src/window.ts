/**
 * Fixed-window attempt counters and per-subject backoff (docs/operations.md "Rate limits"). An
 * attempt is checked and counted in one Lua script (docs/security.md "Guessing"): reading the
 * counter and incrementing it in two steps let 58 of 60 concurrent wrong passwords through a limit
 * of 5. A refused attempt counts nothing. Buckets that count only failures reserve a slot first and
 * give it back (`refund`) when the attempt succeeded, so a person who gets it right is never slowed.
 * The window starts at a subject's first attempt and lasts `windowSeconds`.
 */
import type { Redis } from 'ioredis';
import type { BackoffRule, WindowRule } from './buckets.ts';
import { runScript, script } from './lua.ts';

export interface Limiter {
  /**
   * Checks and counts one attempt atomically: 0 when it is admitted (and counted), otherwise the
   * seconds until the subject may try again (and nothing is counted).
   */
  attempt(scope: string, subject: string, rule: WindowRule): Promise<number>;
  /**
   * Checks one attempt against the subject's backoff and counts it as a failure atomically: 0 when
   * admitted, otherwise the seconds to wait. A success is recorded with `reset`.
   */
  backoff(scope: string, subject: string, rule: BackoffRule): Promise<number>;
  /** Gives back one counted attempt (it succeeded, and only failures count). */
  refund(scope: string, subject: string): Promise<void>;
  /** Forgets the subject's count or backoff in `scope`. */
  reset(scope: string, subject: string): Promise<void>;
}

/** KEYS[1] counter; ARGV limit, window. Returns 0 (counted) or the seconds left in the window. */
const ATTEMPT = script(`
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n >= tonumber(ARGV[1]) then
  local ttl = redis.call('TTL', KEYS[1])
  if ttl < 0 then redis.call('EXPIRE', KEYS[1], ARGV[2]); ttl = tonumber(ARGV[2]) end
  return ttl
end
n = redis.call('INCR', KEYS[1])
if n == 1 or redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return 0
`);

/** KEYS[1] counter: one attempt given back, never below zero, the window kept. */
const REFUND = script(`
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n > 0 then redis.call('DECR', KEYS[1]) end
return 0
`);

/**
 * KEYS[1] backoff state {n failures, until (ms)}; ARGV now (ms), free failures, first wait (s), max
 * wait (s), memory (s). Returns 0 (admitted, counted as a failure) or the seconds left to wait.
 */
const BACKOFF = script(`
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
`);

export interface LimiterOptions {
  /** The Redis key of a subject's counter in a scope (the caller's key layout, docs/redis-schema.md). */
  key: (scope: string, subject: string) => string;
  now?: () => number;
}

/** The limiter of fixed windows and backoffs over `redis`, its keys named by `options.key`. */
export function createLimiter(redis: Redis, options: LimiterOptions): Limiter {
  const { key } = options;
  const now = options.now ?? Date.now;
  return {
    async attempt(scope, subject, rule) {
      return Number(await runScript(redis, ATTEMPT, [key(scope, subject)], [rule.limit, rule.windowSeconds]));
    },
    async backoff(scope, subject, rule) {
      const args = [now(), rule.freeFailures, rule.firstWaitSeconds, rule.maxWaitSeconds, rule.memorySeconds];
      return Number(await runScript(redis, BACKOFF, [key(scope, subject)], args));
    },
    async refund(scope, subject) {
      await runScript(redis, REFUND, [key(scope, subject)], []);
    },
    async reset(scope, subject) {
      await redis.del(key(scope, subject));
    },
  };
}
