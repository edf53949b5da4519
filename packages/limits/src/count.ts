/**
 * A counter of a clock-aligned window (the window's number is part of the key the caller names,
 * as the management bucket's minute is): every request counts, refused or not, in one INCR with
 * its EXPIRE set on the first, so concurrent requests are counted exactly once each.
 */
import type { Redis } from 'ioredis';
import type { WindowRule } from './buckets.ts';
import { runScript, script } from './lua.ts';

/** KEYS[1] counter; ARGV TTL (s). Returns the count, this request included. */
const COUNT = script("local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end return n");

/** Counts one request in `key`, one window of `rule`; the key is kept two windows (a replica's late clock still finds it). */
export async function countInWindow(redis: Redis, key: string, rule: WindowRule): Promise<number> {
  return Number(await runScript(redis, COUNT, [key], [rule.windowSeconds * 2]));
}
