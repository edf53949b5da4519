/**
 * Setting up an authenticator app (docs/auth-service.md "Second factor"): during a sign-in whose
 * workspace requires a factor the person does not have yet (/signin/enrol), or from the account's
 * factors (/factors/totp), where replacing one needs a step-up. Both end on the recovery codes,
 * shown once.
 */
import type { Express, Request, Response } from 'express';
import type { User } from '@svc/accounts';
import { render } from '../ui/html.ts';
import { confirmEnrolment, enrolmentOf } from './enrol.ts';
import { formFields, signedInOf, type FactorPageDeps } from './page-kit.ts';
import { hasRecentFactor, markFactorUsed } from './step-up.ts';
import { enrolPage, recoveryCodesPage } from './views.ts';
import type { WaitingSignIns } from './waiting-sign-in.ts';
import { ROUTES } from '../http/routes.ts';

/** The enrolment pages of a waiting sign-in and of a signed-in person. */
export function enrolmentRoutes(deps: FactorPageDeps, signIns: WaitingSignIns) {
  const { accounts } = deps;
  const signedIn = signedInOf(deps);

  /** The enrolment form posting to `action`, with a new secret to scan. */
  async function enrolForm(
    req: Request,
    res: Response,
    user: User,
    v: { action: string; required?: true; error?: string; status?: number },
  ) {
    const e = await enrolmentOf(accounts, user);
    const { status = 200, ...view } = v;
    render(res, enrolPage({ csrf: deps.web.csrfToken(req, res), ...view, ...e }), { status });
  }

  /** Replacing an existing factor is a step-up action, as removing it is: a stolen session cannot swap it. */
  async function replacingNeedsStepUp(req: Request, res: Response, user: User): Promise<boolean> {
    if (!(await accounts.factors.hasAny(user.id)) || (await hasRecentFactor(deps.redis, req))) return false;
    res.redirect(303, ROUTES.stepUp.path);
    return true;
  }

  return {
    mount(app: Express): void {
      app.get(ROUTES.enrol.path, async (req, res) => {
        const w = await signIns.read(req, res, 'enrol');
        if (w) await enrolForm(req, res, w.user, { action: ROUTES.enrol.path, required: true });
      });
      app.post(ROUTES.enrol.path, async (req, res) => {
        const w = await signIns.read(req, res, 'enrol');
        if (!w) return;
        const show = (error: string, status: number) =>
          enrolForm(req, res, w.user, { action: ROUTES.enrol.path, required: true, error, status });
        if (!deps.web.csrfValid(req)) return show('The form expired. Try again.', 403);
        // A sign-in waiting to enrol never replaces a factor the person set up since it began.
        if (await accounts.factors.hasAny(w.user.id)) return void res.redirect(303, ROUTES.signIn.path);
        const done = await confirmEnrolment(accounts, w.user, formFields(req)['code'], req.ip ?? '');
        if ('error' in done) return show(done.error, 400);
        if (await signIns.finish(req, res, w, 'enrolled')) render(res, recoveryCodesPage(done.codes, w.p.returnTo));
      });

      app.get(ROUTES.totp.path, async (req, res) => {
        const user = await signedIn(req, res);
        if (!user || (await replacingNeedsStepUp(req, res, user))) return;
        await enrolForm(req, res, user, { action: ROUTES.totp.path });
      });
      app.post(ROUTES.totp.path, async (req, res) => {
        const user = await signedIn(req, res);
        if (!user || (await replacingNeedsStepUp(req, res, user))) return;
        const show = (error: string, status: number) => enrolForm(req, res, user, { action: ROUTES.totp.path, error, status });
        if (!deps.web.csrfValid(req)) return show('The form expired. Try again.', 403);
        const done = await confirmEnrolment(accounts, user, formFields(req)['code'], req.ip ?? '');
        if ('error' in done) return show(done.error, 400);
        await markFactorUsed(deps.redis, req);
        render(res, recoveryCodesPage(done.codes, ROUTES.factors.path));
      });
    },
  };
}
