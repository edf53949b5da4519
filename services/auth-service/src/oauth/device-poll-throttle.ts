/**
 * RFC 8628 §3.5 polling rate for the device grant, which oidc-provider leaves to us (it never
 * throws SlowDown). A poll sooner than the current interval after the previous one answers
 * `slow_down` and adds 5 seconds to the interval of that device code. Only polls by the client the
 * code was issued to count: another client's request gets the provider's `invalid_grant`.
 * The poll is compared and recorded in one Redis script, so concurrent polls cannot all pass as
 * "on time" (ten concurrent polls of a new code used to all get authorization_pending).
 */
import type { NextFunction, Request, Response } from 'express';
import { oidcDigest, type Redis } from '@svc/accounts';
import { DEVICE_GRANT } from '../provider/clients.ts';
import { OK } from '../provider/redis-keys.ts';
import { oauthParams } from './body.ts';
import { POLL_INTERVAL_SECONDS } from './device-authorization-response.ts';
import { sendOAuthError } from './oauth-error.ts';
import { TTL } from '../provider/configuration.ts';
import { runScript } from '../http/throttle.ts';

/**
 * KEYS[1] polling state {last (ms), interval (s)}; ARGV now (ms), first interval (s), step (s),
 * TTL (s). Returns the interval to announce when the poll came too soon, else 0.
 */
const POLL = `
local last = tonumber(redis.call('HGET', KEYS[1], 'last') or '0')
local interval = tonumber(redis.call('HGET', KEYS[1], 'interval') or ARGV[2])
local now = tonumber(ARGV[1])
local tooSoon = last > 0 and now - last < interval * 1000
if tooSoon then interval = interval + tonumber(ARGV[3]) end
redis.call('HSET', KEYS[1], 'last', ARGV[1], 'interval', interval)
redis.call('EXPIRE', KEYS[1], ARGV[4])
if tooSoon then return interval end
return 0
`;
/** RFC 8628 §3.5: each slow_down adds 5 seconds. */
const SLOW_DOWN_STEP_SECONDS = 5;
export function devicePollThrottle(deps: { redis: Redis; now?: () => number }) {
  const now = deps.now ?? Date.now;
  return async function throttleDevicePolls(_req: Request, res: Response, next: NextFunction): Promise<void> {
    const params = oauthParams(res);
    const deviceCode = params.get('device_code');
    if (params.get('grant_type') !== DEVICE_GRANT || !deviceCode || deviceCode.length > 200) return next();
    const h = await deps.redis.hgetall(OK.model('DeviceCode', deviceCode));
    if (!h['payload'] || h['consumed']) return next();
    const code = JSON.parse(h['payload']) as { clientId?: string; accountId?: string; error?: string };
    // Approved or denied codes answer at once; a foreign client is refused by the provider.
    if (code.clientId !== params.get('client_id') || code.accountId || code.error) return next();
    const key = OK.poll(oidcDigest(deviceCode));
    const interval = Number(
      await runScript(deps.redis, POLL, [key], [now(), POLL_INTERVAL_SECONDS, SLOW_DOWN_STEP_SECONDS, TTL.DeviceCode]),
    );
    if (interval > 0) {
      return sendOAuthError(res, 'slow_down', `polling too often: wait at least ${interval} seconds between requests`, { interval });
    }
    next();
  };
}
