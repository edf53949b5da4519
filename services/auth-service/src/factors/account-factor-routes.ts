/**
 * The account's factors page (docs/auth-service.md "Second factor"): what a signed-in person has
 * set up (/factors), and the authenticator app's removal (/factors/totp/remove), a step-up action
 * refused while the workspace requires a factor and no passkey would remain.
 */
import type { Express, Request, Response } from 'express';
import { MAX_PASSKEYS_PER_ACCOUNT, type User } from '@svc/accounts';
import { render } from '../ui/html.ts';
import { accountFrameOf, formFields, signedInOf, type FactorPageDeps } from './page-kit.ts';
import { hasRecentFactor, mustUseFactor } from './step-up.ts';
import { FACTORS_TITLE, factorsBody } from './views.ts';
import { ROUTES } from '../http/routes.ts';
import type { PageRefusal } from '@svc/errors';

/** The factors page and the authenticator app's removal. */
export function accountFactorRoutes(deps: FactorPageDeps) {
  const { accounts } = deps;
  const signedIn = signedInOf(deps);
  const framed = accountFrameOf(deps);
  /** The factors page in the account frame, with a notice and its status. */
  const show = async (req: Request, res: Response, user: User, notice?: string, refusal?: PageRefusal) =>
    render(
      res,
      await framed(
        req,
        res,
        user,
        FACTORS_TITLE,
        factorsBody(deps.web.csrfToken(req, res), await accounts.factors.summary(user.id), notice, MAX_PASSKEYS_PER_ACCOUNT),
      ),
      { refusal },
    );

  return {
    mount(app: Express): void {
      app.get(ROUTES.factors.path, async (req, res) => {
        const user = await signedIn(req, res);
        if (user) await show(req, res, user);
      });
      // Removing a factor is a step-up action: whoever holds only the session cannot take it off.
      app.post(ROUTES.totpRemove.path, async (req, res) => {
        const user = await signedIn(req, res);
        if (!user) return;
        const summary = await accounts.factors.summary(user.id);
        if (!deps.web.csrfValid(req) || formFields(req)['confirm'] !== 'yes')
          return show(req, res, user, 'Tick the box to confirm. Nothing was removed.', 'invalid_form');
        if (!(await hasRecentFactor(deps.redis, req))) return void res.redirect(303, '/factors/step-up?return=%2Ffactors');
        if (summary.passkeys.length === 0 && (await mustUseFactor(accounts, user))) {
          const why =
            'Your workspace requires a second factor: set up a new authenticator app instead, which replaces this one, or add a passkey first.';
          return show(req, res, user, why, 'conflict');
        }
        await accounts.factors.removeTotp(user.id);
        await accounts.audit.recordOwn(user, 'factor.removed', { source: req.ip ?? '' }, { factor: 'totp' });
        await show(req, res, user, 'The authenticator app was removed.');
      });
    },
  };
}
