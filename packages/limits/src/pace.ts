/**
 * Pacing of repeated polls (RFC 8628 §3.5): a poll sooner than the current interval after the
 * previous one is refused and adds `stepSeconds` to the interval. The poll is compared and
 * recorded in one Lua script, so concurrent polls cannot all pass as "on time".
 */
import type { Redis } from 'ioredis';
import type { PaceRule } from './buckets.ts';
import { runScript, script } from './lua.ts';

/**
 * KEYS[1] polling state {last (ms), interval (s)}; ARGV now (ms), first interval (s), step (s),
 * TTL (s). Returns the interval to announce when the poll came too soon, else 0.
 */
const POLL = script(`
local last = tonumber(redis.call('HGET', KEYS[1], 'last') or '0')
local interval = tonumber(redis.call('HGET', KEYS[1], 'interval') or ARGV[2])
local now = tonumber(ARGV[1])
local tooSoon = last > 0 and now - last < interval * 1000
if tooSoon then interval = interval + tonumber(ARGV[3]) end
redis.call('HSET', KEYS[1], 'last', ARGV[1], 'interval', interval)
redis.call('EXPIRE', KEYS[1], ARGV[4])
if tooSoon then return interval end
return 0
`);

export interface PaceOptions {
  nowMs: number;
  /** The interval announced before any slow_down. */
  firstIntervalSeconds: number;
  /** How long the polling state is kept (the device code's lifetime). */
  ttlSeconds: number;
}

/** Records one poll in `key`: 0 when on time, else the new interval (seconds) to announce. */
export async function pace(redis: Redis, key: string, rule: PaceRule, o: PaceOptions): Promise<number> {
  return Number(await runScript(redis, POLL, [key], [o.nowMs, o.firstIntervalSeconds, rule.stepSeconds, o.ttlSeconds]));
}
