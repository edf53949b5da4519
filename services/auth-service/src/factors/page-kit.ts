/**
 * What the second-factor pages share (docs/auth-service.md "Second factor"): the fields of a
 * posted form, the person signed in, and the check of a typed code.
 */
import type { Request, Response } from 'express';
import type { Accounts, Redis, User } from '@svc/accounts';
import type { Throttle, ThrottleLimits } from '../http/throttle.ts';
import type { WebSessions } from '../http/web-session.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { page } from '../ui/layout.ts';
import { checkTypedFactor } from './check.ts';

/**
 * A signed-in person's factor page (the factors list, setting one up, recovery codes, step-up)
 * around its body: in the dashboard's frame where the app mounts one (mount-pages.ts passes the
 * dashboard's, which stands on a floor above this one), else the sign-in pages' one layout.
 */
export type AccountFrame = (req: Request, res: Response, user: User, title: string, body: SafeHtml) => Promise<SafeHtml>;

/** The sign-in pages' layout, for a factor page where no dashboard frame was given. */
const plainFrame: AccountFrame = async (_req, _res, _user, title, body) => page(title, html`${body}`);

/** What the factor pages read. */
export interface FactorPageDeps {
  redis: Redis;
  accounts: Accounts;
  web: WebSessions;
  throttle: Throttle;
  limits: ThrottleLimits;
  /** The frame of a signed-in person's factor pages; the sign-in layout when absent. */
  accountFrame?: AccountFrame | undefined;
}

/** The frame the factor pages of a signed-in person are drawn in. */
export const accountFrameOf = (deps: Pick<FactorPageDeps, 'accountFrame'>): AccountFrame => deps.accountFrame ?? plainFrame;

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
