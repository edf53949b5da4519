/**
 * Pre-step of the code entry page (`POST /device`, and `GET /device?code=`, which shows whether a
 * code is pending just as a POST does): every code looked up is a guess, counted per source in
 * one throttle (docs/contract.md "Device authorization response": wrong entries are rate limited).
 * The guess is checked and counted in one Redis script before the code is looked up, and given
 * back when the code turns out to be pending, so only unknown codes use up the budget and
 * concurrent guesses cannot pass it. docs/security.md "User-code guessing" computes the budget.
 */
import type { NextFunction, Request, Response } from 'express';
import type { Redis } from '@svc/accounts';
import type { Throttle, ThrottleRule } from '../http/throttle.ts';
import { normalizeUserCode } from './user-code.ts';
import { OK } from '../store/redis-keys.ts';
import { tooMany } from '../http/too-many.ts';

const SCOPE = 'code-ip';

/** The code a request looks up: the form's `user_code` on POST, `?code=` on GET. */
function codeOf(req: Request): string {
  const given = req.method === 'POST' ? (req.body as Record<string, unknown> | undefined)?.['user_code'] : req.query['code'];
  return typeof given === 'string' ? normalizeUserCode(given) : '';
}

export function codeEntryThrottle(deps: { redis: Redis; throttle: Throttle; rule: ThrottleRule }) {
  return async function throttleCodeEntry(req: Request, res: Response, next: NextFunction): Promise<void> {
    const code = codeOf(req);
    if (!code) return next();
    const ip = req.ip ?? 'unknown';
    const wait = await deps.throttle.attempt(SCOPE, ip, deps.rule);
    if (wait > 0) return tooMany(res, wait, { reset: false });
    if (code.length === 8 && (await deps.redis.exists(OK.userCode(code)))) await deps.throttle.refund(SCOPE, ip);
    next();
  };
}
