/**
 * RFC 8628 §3.5 polling rate for the device grant, which oidc-provider leaves to us (it never
 * throws SlowDown). A poll sooner than the current interval after the previous one answers
 * `slow_down` and adds 5 seconds to the interval of that device code. Only polls by the client the
 * code was issued to count: another client's request gets the provider's `invalid_grant`.
 * The poll is compared and recorded in one Redis script (`@svc/limits` pace, the devicePoll
 * bucket), so concurrent polls cannot all pass as "on time" (ten concurrent polls of a new code
 * used to all get authorization_pending).
 */
import type { NextFunction, Request, Response } from 'express';
import { oidcDigest, oidcRecords, type Redis } from '@svc/accounts';
import { DEVICE_GRANT } from './clients.ts';
import { OK } from '../store/redis-keys.ts';
import { oauthParams } from './body.ts';
import { POLL_INTERVAL_SECONDS } from './device-authorization-response.ts';
import { sendOAuthError } from '../http/oauth-error.ts';
import { TTL } from './lifetimes.ts';
import { BUCKETS, pace } from '@svc/limits';

export function devicePollThrottle(deps: { redis: Redis; now?: () => number }) {
  const now = deps.now ?? Date.now;
  return async function throttleDevicePolls(_req: Request, res: Response, next: NextFunction): Promise<void> {
    const params = oauthParams(res);
    const deviceCode = params.get('device_code');
    if (params.get('grant_type') !== DEVICE_GRANT || !deviceCode || deviceCode.length > 200) return next();
    const stored = await oidcRecords.deviceCode(deps.redis, deviceCode);
    if (!stored || stored.consumed) return next();
    const code = stored.payload;
    // Approved or denied codes answer at once; a foreign client is refused by the provider.
    if (code.clientId !== params.get('client_id') || code.accountId || code.error) return next();
    const key = OK.poll(oidcDigest(deviceCode));
    const interval = await pace(deps.redis, key, BUCKETS.devicePoll, {
      nowMs: now(),
      firstIntervalSeconds: POLL_INTERVAL_SECONDS,
      ttlSeconds: TTL.DeviceCode,
    });
    if (interval > 0) {
      return sendOAuthError(res, 'slow_down', `polling too often: wait at least ${interval} seconds between requests`, { interval });
    }
    next();
  };
}
