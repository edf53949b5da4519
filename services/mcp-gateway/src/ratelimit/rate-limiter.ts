/**
 * Requests per minute and monthly queries of the plan holder, checked and counted in one Redis
 * round trip (one Lua script over keys sharing the workspace's hash tag, so it runs on Redis
 * Cluster). Fixed windows: the minute counter resets on the minute (X-RateLimit-Reset is that
 * moment in Unix seconds, as GitHub does), the monthly one at 00:00 UTC on the first of the month.
 * A rejected request increments no counter, so N replicas together admit exactly the limit.
 *
 * The same script keeps a key's own minute counter when the key has a limit below the plan's
 * (docs/management.md "Per-key limits"), and counts each admitted request in the month's usage
 * hash, per credential and per tool, so usage costs no extra round trip.
 */
import type { Redis } from '@svc/accounts';
import { K, USAGE_FIELDS, WINDOWS } from '@svc/accounts';
import type { Plan, RateLimitProfile } from '@svc/policy';
import { planLimits } from '@svc/policy';

// KEYS: workspace minute, workspace month, key minute, usage hash.
// ARGV: 1 plan per-minute limit, 2 minute TTL, 3 counts as a query, 4 monthly limit (-1 none),
// 5 fair use, 6 month TTL, 7 the key's own limit (-1 none), 8 credential field, 9 tool field ('' none).
const SCRIPT = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used >= tonumber(ARGV[1]) then return {0, used, -1, -1} end
local klimit = tonumber(ARGV[7])
local kused = -1
if klimit >= 0 then
  kused = tonumber(redis.call('GET', KEYS[3]) or '0')
  if kused >= klimit then return {3, used, -1, kused} end
end
local q = -1
if ARGV[3] == '1' then
  q = tonumber(redis.call('GET', KEYS[2]) or '0')
  local limit = tonumber(ARGV[4])
  if limit >= 0 and q >= limit and ARGV[5] ~= '1' then return {2, used, q, kused} end
  q = redis.call('INCR', KEYS[2])
  if q == 1 then redis.call('EXPIRE', KEYS[2], ARGV[6]) end
end
used = redis.call('INCR', KEYS[1])
if used == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
if klimit >= 0 then
  kused = redis.call('INCR', KEYS[3])
  if kused == 1 then redis.call('EXPIRE', KEYS[3], ARGV[2]) end
end
if redis.call('HINCRBY', KEYS[4], ARGV[8], 1) == 1 then redis.call('EXPIRE', KEYS[4], ARGV[6]) end
if ARGV[9] ~= '' then redis.call('HINCRBY', KEYS[4], ARGV[9], 1) end
return {1, used, q, kused}
`;

export type RateOutcome = 'allowed' | 'rate_limited' | 'quota_exhausted';

export interface RateDecision {
  outcome: RateOutcome;
  /** The tighter of the plan's limit and the key's own (the one the headers describe). */
  limit: number;
  remaining: number;
  /** Unix seconds at which the minute window resets. */
  reset: number;
  /** Seconds to wait before retrying (rejections). */
  retryAfter: number;
  /** Monthly queries used after this request (when it counted one). */
  monthlyUsed: number | null;
  monthlyLimit: number | null;
  /** A fair-use plan went past its monthly figure (never blocked; flagged). */
  overFairUse: boolean;
  /** The refusal came from the key's own limit, not the workspace's. */
  byKeyLimit: boolean;
}

/** The request being charged: who pays, what it is, and which credential and tool it counts for. */
export interface Charge {
  workspace: string;
  plan: Plan;
  countsAsQuery: boolean;
  /** The usage hash's field for the credential (USAGE_FIELDS). */
  credential: string;
  /** The key's id and its own per-minute limit, when it has one. */
  keyLimit?: { keyId: string; perMinute: number } | null;
  /** A tools/call's tool name. */
  tool?: string | null;
}

type LimiterRedis = Redis & {
  svcRateLimit(k1: string, k2: string, k3: string, k4: string, ...args: (string | number)[]): Promise<[number, number, number, number]>;
};

export interface RateLimiterOptions {
  profile: RateLimitProfile;
  scale: number;
  now?: () => number;
}

export function createRateLimiter(redis: Redis, options: RateLimiterOptions) {
  const now = options.now ?? Date.now;
  if (!('svcRateLimit' in redis)) redis.defineCommand('svcRateLimit', { numberOfKeys: 4, lua: SCRIPT });
  const r = redis as LimiterRedis;

  /** Checks and counts one request (docs/contract.md "Rate limits"). */
  return async function check(charge: Charge): Promise<RateDecision> {
    const { workspace } = charge;
    const limits = planLimits(charge.plan, options.profile, options.scale);
    const t = now();
    const minute = WINDOWS.minute(t);
    const month = WINDOWS.month(t);
    const reset = (minute + 1) * 60;
    const d = new Date(t);
    const monthEnd = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
    const monthTtl = Math.ceil(monthEnd - t / 1000) + 86_400;
    const keyLimit = charge.keyLimit && charge.keyLimit.perMinute < limits.requestsPerMinute ? charge.keyLimit : null;
    const [status, used, q, kused] = await r.svcRateLimit(
      K.rateMinute(workspace, minute),
      K.rateMonth(workspace, month),
      keyLimit ? K.rateKeyMinute(workspace, keyLimit.keyId, minute) : K.rateKeyMinute(workspace, '-', minute),
      K.usage(workspace, month),
      limits.requestsPerMinute,
      120,
      charge.countsAsQuery ? '1' : '0',
      limits.monthlyQueries ?? -1,
      limits.fairUse ? '1' : '0',
      monthTtl,
      keyLimit ? keyLimit.perMinute : -1,
      charge.credential,
      charge.tool ? USAGE_FIELDS.tool(charge.tool) : '',
    );
    const nowSec = t / 1000;
    const outcome: RateOutcome = status === 1 ? 'allowed' : status === 2 ? 'quota_exhausted' : 'rate_limited';
    const planRemaining = Math.max(0, limits.requestsPerMinute - used);
    const keyRemaining = keyLimit ? Math.max(0, keyLimit.perMinute - Math.max(0, kused)) : Infinity;
    return {
      outcome,
      limit: keyLimit ? keyLimit.perMinute : limits.requestsPerMinute,
      remaining: Math.min(planRemaining, keyRemaining),
      reset,
      retryAfter: Math.max(1, Math.ceil((outcome === 'quota_exhausted' ? monthEnd : reset) - nowSec)),
      monthlyUsed: q >= 0 ? q : null,
      monthlyLimit: limits.monthlyQueries,
      overFairUse: limits.fairUse && limits.monthlyQueries !== null && q > limits.monthlyQueries,
      byKeyLimit: status === 3,
    };
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

/** The response headers of a decision: GitHub's X-RateLimit-* and the IETF RateLimit fields. */
export function rateLimitHeaders(d: RateDecision, nowMs: number = Date.now()): Record<string, string | number> {
  const secondsLeft = Math.max(0, Math.ceil(d.reset - nowMs / 1000));
  const h: Record<string, string | number> = {
    'X-RateLimit-Limit': d.limit,
    'X-RateLimit-Remaining': d.remaining,
    'X-RateLimit-Reset': d.reset,
    'RateLimit-Policy': `"minute";q=${d.limit};w=60`,
    RateLimit: `"minute";r=${d.remaining};t=${secondsLeft}`,
  };
  if (d.outcome !== 'allowed') h['Retry-After'] = d.retryAfter;
  return h;
}
