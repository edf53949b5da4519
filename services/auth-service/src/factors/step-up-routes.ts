/**
 * The step-up page (docs/auth-service.md "Second factor"): a signed-in person gives a factor again,
 * typed at /factors/step-up or a passkey at /factors/step-up/passkey, before an action that needs
 * a recent one, and goes back to where they were.
 */
import type { Express, Request, Response } from 'express';
import type { User } from '@svc/accounts';
import { html, render, type SafeHtml } from '../ui/html.ts';
import { safeReturn } from '../pages/return-to.ts';
import { tooMany } from '../http/too-many.ts';
import { accountFrameOf, formFields, signedInOf, typedFactorCheck, type FactorPageDeps } from './page-kit.ts';
import type { passkeys } from './passkey-routes.ts';
import { markFactorUsed, STEP_UP_MINUTES } from './step-up.ts';
import { ENROL_FIRST_TITLE, enrolFirstBody, STEP_UP_TITLE, stepUpBody } from './views.ts';
import { ROUTES } from '../http/routes.ts';
import type { PageRefusal } from '@svc/errors';

/** The step-up pages, on the passkey routes' assertions. */
export function stepUpRoutes(deps: FactorPageDeps, pk: Pick<ReturnType<typeof passkeys>, 'askFor' | 'asserted'>) {
  const { accounts } = deps;
  const signedIn = signedInOf(deps);
  const check = typedFactorCheck(deps);
  const framed = accountFrameOf(deps);
  /** The step-up page in the account frame: its form, any refusal, the passkey's form when there is one. */
  const stepUpPage = async (req: Request, res: Response, user: User, returnTo: string, error?: string, passkey?: SafeHtml) =>
    framed(req, res, user, STEP_UP_TITLE, stepUpBody(deps.web.csrfToken(req, res), returnTo, STEP_UP_MINUTES, error, passkey));

  return {
    mount(app: Express): void {
      app.get(ROUTES.stepUp.path, async (req, res) => {
        const user = await signedIn(req, res);
        if (!user) return;
        if (!(await accounts.factors.hasAny(user.id)))
          return render(res, await framed(req, res, user, ENROL_FIRST_TITLE, enrolFirstBody()), { refusal: 'forbidden' });
        const returnTo = safeReturn(req.query['return']);
        const passkey = await pk.askFor(
          req,
          res,
          user,
          'step-up',
          ROUTES.stepUpPasskey.path,
          html`<input type="hidden" name="return" value="${returnTo}">`,
        );
        render(res, await stepUpPage(req, res, user, returnTo, undefined, passkey));
      });
      app.post(ROUTES.stepUpPasskey.path, async (req, res) => {
        const user = await signedIn(req, res);
        if (!user) return;
        const returnTo = safeReturn(formFields(req)['return']);
        if (!deps.web.csrfValid(req))
          return render(res, await stepUpPage(req, res, user, returnTo, 'The form expired. Try again.'), { refusal: 'form_expired' });
        const who = await pk.asserted(req, res, 'step-up', user.id);
        if (typeof who === 'string') return render(res, await stepUpPage(req, res, user, returnTo, who), { refusal: 'invalid_form' });
        await markFactorUsed(deps.redis, req);
        res.redirect(303, returnTo);
      });
      app.post(ROUTES.stepUp.path, async (req, res) => {
        const user = await signedIn(req, res);
        if (!user) return;
        const returnTo = safeReturn(formFields(req)['return']);
        const again = async (error: string, refusal: PageRefusal) =>
          render(res, await stepUpPage(req, res, user, returnTo, error), { refusal });
        if (!deps.web.csrfValid(req)) return again('The form expired. Try again.', 'form_expired');
        const result = await check(user.id, { code: formFields(req)['code'] });
        if (!result.ok) {
          if (result.waitSeconds > 0)
            return tooMany(res, result.waitSeconds, { returnTo, csrf: deps.web.csrfToken(req, res), reset: false });
          return again('That code is not right, or was used already.', 'wrong_credentials');
        }
        await markFactorUsed(deps.redis, req);
        res.redirect(303, returnTo);
      });
    },
  };
}
