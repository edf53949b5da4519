/**
 * Pre-step of dynamic client registration: registration is open (remote MCP clients register
 * themselves), and each one stores a client record, so every attempt counts against a per-IP
 * window. Over the limit: 429 with Retry-After and an OAuth error body saying when to retry.
 */
import type { NextFunction, Request, Response } from 'express';
import type { Throttle, ThrottleRule } from '../http/throttle.ts';
import { sendOAuthError } from '../http/oauth-error.ts';

export function registrationThrottle(deps: { throttle: Throttle; rule: ThrottleRule }) {
  return async function throttleRegistration(req: Request, res: Response, next: NextFunction): Promise<void> {
    if (req.method !== 'POST') return next();
    const ip = req.ip ?? 'unknown';
    // Checked and counted in one step (throttle.ts): concurrent registrations cannot pass the limit.
    const wait = await deps.throttle.attempt('register-ip', ip, deps.rule);
    if (wait > 0) {
      res.set('Retry-After', String(wait));
      return sendOAuthError(res, 'too_many', `too many client registrations from this address; retry in ${wait} s`);
    }
    next();
  };
}
