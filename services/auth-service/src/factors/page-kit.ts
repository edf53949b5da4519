/**
 * What the second-factor pages share (docs/auth-service.md "Second factor"): the fields of a
 * posted form, the person signed in, and the check of a typed code.
 */
import type { Request, Response } from 'express';
import type { Accounts, Redis, User } from '@svc/accounts';
import type { Throttle, ThrottleLimits } from '../http/throttle.ts';
import type { WebSessions } from '../http/web-session.ts';
import { checkTypedFactor } from './check.ts';

/** What the factor pages read. */
export interface FactorPageDeps {
  redis: Redis;
  accounts: Accounts;
  web: WebSessions;
  throttle: Throttle;
  limits: ThrottleLimits;
}

/** A posted form's fields (the app parses the bodies of the `form` routes of http/routes.ts). */
export const formFields = (req: Request) => (req.body ?? {}) as Record<string, unknown>;

/** The person signed in; null once the browser was sent to sign in first and come back. */
export function signedInOf(deps: Pick<FactorPageDeps, 'accounts' | 'web'>) {
  return async function signedIn(req: Request, res: Response): Promise<User | null> {
    const userId = await deps.web.userOf(req);
    const user = userId ? await deps.accounts.users.get(userId) : null;
    if (!user) res.redirect(303, `/signin?return=${encodeURIComponent(req.originalUrl)}`);
    return user;
  };
}

/** A typed code (authenticator or recovery) checked for `userId`, wrong ones throttled per account. */
export function typedFactorCheck(deps: Pick<FactorPageDeps, 'accounts' | 'throttle' | 'limits'>) {
  return (userId: string, body: Record<string, unknown>) =>
    checkTypedFactor({ accounts: deps.accounts, throttle: deps.throttle, rule: deps.limits.secondFactorPerAccount }, userId, body);
}
