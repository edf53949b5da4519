/**
 * A lease in Redis: which one replica does a background job (the webhook worker, docs/webhooks.md
 * "Delivery"; the audit exporter, docs/audit.md "Streaming"). The holder's token is the value; it
 * lapses after its time unless its holder renews it, and only its holder renews or releases it.
 */
import type { Redis } from 'ioredis';
import { runScript, script } from './lua.ts';

/** KEYS: the lease. ARGV: the holder's token, the lease's milliseconds. Takes a free lease or renews one's own. */
const HOLD = script(`
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`);

/** KEYS: the lease. ARGV: the holder's token. Gives the lease up if it is the holder's. */
const RELEASE = script(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`);

/** Takes the lease at `key` if free, or renews it if `token` holds it, for `ms`: whether `token` holds it now. */
export async function holdLease(redis: Redis, key: string, token: string, ms: number): Promise<boolean> {
  return (await runScript(redis, HOLD, [key], [token, ms])) === 1;
}

/** Gives the lease at `key` up if `token` holds it, so another replica need not wait for it to lapse. */
export async function releaseLease(redis: Redis, key: string, token: string): Promise<void> {
  await runScript(redis, RELEASE, [key], [token]);
}
