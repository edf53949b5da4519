/**
 * The second-factor routes (docs/auth-service.md "Second factor"), one module per page group: the
 * sign-in's second step (sign-in-factor-routes.ts), setting up an authenticator during a sign-in
 * or from the account (enrolment-routes.ts), the account's factors (account-factor-routes.ts),
 * the step-up page (step-up-routes.ts) and the passkeys (passkey-routes.ts). `afterPassword` is
 * the sign-in page's hook: it decides whether a right password starts a session or waits here.
 */
import type { Express, Request, Response } from 'express';
import type { User } from '@svc/accounts';
import type { Logger } from '@svc/logger';
import { accountFactorRoutes } from './account-factor-routes.ts';
import { enrolmentRoutes } from './enrolment-routes.ts';
import type { FactorPageDeps } from './page-kit.ts';
import { passkeys, type PasskeyDeps } from './passkey-routes.ts';
import { signInFactorRoutes } from './sign-in-factor-routes.ts';
import { stepUpRoutes } from './step-up-routes.ts';
import { mustUseFactor } from './step-up.ts';
import { waitingSignIns } from './waiting-sign-in.ts';

export interface FactorDeps extends FactorPageDeps {
  logger: Logger;
  secure: boolean;
  authUrl: string;
  mayUseOwnCredentials: PasskeyDeps['mayUseOwnCredentials'];
}

export function secondFactor(deps: FactorDeps) {
  const { accounts } = deps;
  const signIns = waitingSignIns(deps);
  const pk = passkeys(deps);
  const pages = [
    pk,
    signInFactorRoutes(deps, signIns, pk),
    enrolmentRoutes(deps, signIns),
    accountFactorRoutes(deps),
    stepUpRoutes(deps, pk),
  ];

  return {
    /**
     * The sign-in page's hook, after a right password: a person with a factor is asked for it, a
     * person whose workspace requires one and who has none sets one up; true when it answered.
     */
    async afterPassword(req: Request, res: Response, user: User, returnTo: string): Promise<boolean> {
      const has = await accounts.factors.hasAny(user.id);
      if (!has && !(await mustUseFactor(accounts, user))) return false;
      res.redirect(303, await signIns.wait(res, { userId: user.id, returnTo }, has));
      return true;
    },

    /**
     * The single sign-on callback's hook, once the provider of workspace `via` vouched for the
     * person: that provider answers for `via`'s factor policy, and for no other workspace's. When
     * another workspace of theirs requires a factor, they give theirs (or set one up) before a
     * session starts: the page to go to; null when the session may start now.
     */
    async afterProvider(res: Response, user: User, p: { returnTo: string; via: string; sessionSeconds: number }): Promise<string | null> {
      if (!(await accounts.factors.requiredFor(user, { except: p.via }))) return null;
      return signIns.wait(res, { userId: user.id, ...p }, await accounts.factors.hasAny(user.id));
    },

    /** Passkey assertions for other pages (the dashboard's approval of a held call, docs/approvals.md). */
    passkeys: { askFor: pk.askFor, asserted: pk.asserted },

    mount(app: Express): void {
      for (const group of pages) group.mount(app);
    },
  };
}
