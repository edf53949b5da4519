/**
 * Pre-step of the code entry form (POST /device): wrong entries are rate limited
 * (docs/contract.md "Device authorization response"). Codes that match no device authorization
 * count as failures per IP; once over the limit every entry from that IP is refused until the window ends, so the 1.6e9 codes cannot
 * be guessed.
 */
import type { NextFunction, Request, Response } from 'express';
import type { Redis } from '@svc/accounts';
import type { Throttle, ThrottleRule } from '../http/throttle.ts';
import { normalizeUserCode } from '../pages/device-pages.ts';
import { OK } from '../provider/redis-keys.ts';
import { tooMany } from '../pages/sign-in.ts';

export function codeEntryThrottle(deps: { redis: Redis; throttle: Throttle; rule: ThrottleRule }) {
  return async function throttleCodeEntry(req: Request, res: Response, next: NextFunction): Promise<void> {
    const ip = req.ip ?? 'unknown';
    const wait = await deps.throttle.blockedFor('code-ip', ip, deps.rule);
    if (wait > 0) return tooMany(res, wait);
    const given = (req.body as Record<string, unknown> | undefined)?.['user_code'];
    if (typeof given === 'string' && given) {
      const code = normalizeUserCode(given.slice(0, 40));
      if (!(await deps.redis.exists(OK.userCode(code)))) await deps.throttle.fail('code-ip', ip, deps.rule);
    }
    next();
  };
}
