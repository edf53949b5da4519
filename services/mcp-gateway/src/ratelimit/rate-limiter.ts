/**
 * Requests per minute and monthly queries of the plan holder, checked and counted in one Redis
 * round trip (one Lua script over two keys sharing the workspace's hash tag, so it runs on Redis
 * Cluster). Fixed windows: the minute counter resets on the minute (X-RateLimit-Reset is that
 * moment in Unix seconds, as GitHub does), the monthly one at 00:00 UTC on the first of the month.
 * A rejected request increments neither counter, so N replicas together admit exactly the limit.
 */
import type { Redis } from '@svc/accounts';
import { K } from '@svc/accounts';
import type { Plan, RateLimitProfile } from '@svc/policy';
import { planLimits } from '@svc/policy';

const SCRIPT = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used >= tonumber(ARGV[1]) then return {0, used, -1} end
local q = -1
if ARGV[3] == '1' then
  q = tonumber(redis.call('GET', KEYS[2]) or '0')
  local limit = tonumber(ARGV[4])
  if limit >= 0 and q >= limit and ARGV[5] ~= '1' then return {2, used, q} end
  q = redis.call('INCR', KEYS[2])
  if q == 1 then redis.call('EXPIRE', KEYS[2], ARGV[6]) end
end
used = redis.call('INCR', KEYS[1])
if used == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return {1, used, q}
`;

export type RateOutcome = 'allowed' | 'rate_limited' | 'quota_exhausted';

export interface RateDecision {
  outcome: RateOutcome;
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
}

type LimiterRedis = Redis & {
  svcRateLimit(k1: string, k2: string, ...args: (string | number)[]): Promise<[number, number, number]>;
};

export interface RateLimiterOptions {
  profile: RateLimitProfile;
  scale: number;
  now?: () => number;
}

export function createRateLimiter(redis: Redis, options: RateLimiterOptions) {
  const now = options.now ?? Date.now;
  if (!('svcRateLimit' in redis)) redis.defineCommand('svcRateLimit', { numberOfKeys: 2, lua: SCRIPT });
  const r = redis as LimiterRedis;

  /** Checks and counts one request of `workspace`; `countsAsQuery` for a tools/call that counts. */
  return async function check(workspace: string, plan: Plan, countsAsQuery: boolean): Promise<RateDecision> {
    const limits = planLimits(plan, options.profile, options.scale);
    const t = now();
    const minute = Math.floor(t / 60_000);
    const reset = (minute + 1) * 60;
    const d = new Date(t);
    const month = `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
    const monthEnd = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
    const monthTtl = Math.ceil(monthEnd - t / 1000) + 86_400;
    const [status, used, q] = await r.svcRateLimit(
      K.rateMinute(workspace, minute),
      K.rateMonth(workspace, month),
      limits.requestsPerMinute,
      120,
      countsAsQuery ? '1' : '0',
      limits.monthlyQueries ?? -1,
      limits.fairUse ? '1' : '0',
      monthTtl,
    );
    const nowSec = t / 1000;
    const outcome: RateOutcome = status === 1 ? 'allowed' : status === 0 ? 'rate_limited' : 'quota_exhausted';
    return {
      outcome,
      limit: limits.requestsPerMinute,
      remaining: Math.max(0, limits.requestsPerMinute - used),
      reset,
      retryAfter: Math.max(1, Math.ceil((outcome === 'quota_exhausted' ? monthEnd : reset) - nowSec)),
      monthlyUsed: q >= 0 ? q : null,
      monthlyLimit: limits.monthlyQueries,
      overFairUse: limits.fairUse && limits.monthlyQueries !== null && q > limits.monthlyQueries,
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
