/**
 * The sign-in's second step (docs/auth-service.md "Second factor"): after a right password, the
 * person gives their factor at /signin/factor, typed (an authenticator or a recovery code) or a
 * passkey (/signin/factor/passkey), and the session they waited for starts.
 */
import type { Express, Request, Response } from 'express';
import { render } from '../ui/html.ts';
import { tooMany } from '../http/too-many.ts';
import { formFields, typedFactorCheck, type FactorPageDeps } from './page-kit.ts';
import type { passkeys } from './passkey-routes.ts';
import { factorPage } from './views.ts';
import type { WaitingSignIns } from './waiting-sign-in.ts';
import { ROUTES } from '../http/routes.ts';
import type { PageRefusal } from '@svc/errors';

/** The sign-in factor pages, on the waiting sign-ins and the passkey routes' assertions. */
export function signInFactorRoutes(
  deps: FactorPageDeps,
  signIns: WaitingSignIns,
  pk: Pick<ReturnType<typeof passkeys>, 'askFor' | 'asserted'>,
) {
  const { accounts } = deps;
  const check = typedFactorCheck(deps);

  const csrfOk = (req: Request, res: Response, page: () => void): boolean => {
    if (deps.web.csrfValid(req)) return true;
    page();
    return false;
  };

  return {
    mount(app: Express): void {
      app.get(ROUTES.signInFactor.path, async (req, res) => {
        const w = await signIns.read(req, res, 'verify');
        if (!w) return;
        render(
          res,
          factorPage(deps.web.csrfToken(req, res), undefined, await pk.askFor(req, res, w.user, 'factor', ROUTES.signInFactorPasskey.path)),
        );
      });
      app.post(ROUTES.signInFactorPasskey.path, async (req, res) => {
        const w = await signIns.read(req, res, 'verify');
        if (!w) return;
        const again = async (error: string, refusal: PageRefusal) =>
          render(
            res,
            factorPage(deps.web.csrfToken(req, res), error, await pk.askFor(req, res, w.user, 'factor', ROUTES.signInFactorPasskey.path)),
            { refusal },
          );
        if (!csrfOk(req, res, () => void again('The form expired. Try again.', 'form_expired'))) return;
        const who = await pk.asserted(req, res, 'factor', w.user.id);
        if (typeof who === 'string') {
          await accounts.audit.recordOwn(w.user, 'signin.factor_failed', { source: req.ip ?? '' });
          return again(who, 'invalid_form');
        }
        if (await signIns.finish(req, res, w, 'second')) res.redirect(303, w.p.returnTo);
      });
      app.post(ROUTES.signInFactor.path, async (req, res) => {
        const w = await signIns.read(req, res, 'verify');
        if (!w) return;
        const again = (error: string, refusal: PageRefusal) => render(res, factorPage(deps.web.csrfToken(req, res), error), { refusal });
        if (!csrfOk(req, res, () => again('The form expired. Try again.', 'form_expired'))) return;
        const result = await check(w.user.id, formFields(req));
        if (!result.ok) {
          if (result.waitSeconds > 0) return tooMany(res, result.waitSeconds, { csrf: deps.web.csrfToken(req, res), reset: false });
          await accounts.audit.recordOwn(w.user, 'signin.factor_failed', { source: req.ip ?? '' });
          return again('That code is not right, or was used already.', 'wrong_credentials');
        }
        if (result.recovery) await accounts.audit.recordOwn(w.user, 'factor.recovery_used', { source: req.ip ?? '' });
        if (await signIns.finish(req, res, w, 'second')) res.redirect(303, w.p.returnTo);
      });
    },
  };
}
