/**
 * Setting up an authenticator app (docs/auth-service.md "Second factor"): during a sign-in whose
 * workspace requires a factor the person does not have yet (/signin/enrol), or from the account's
 * factors (/factors/totp, in the account frame), where replacing one needs a step-up. Both end on
 * the recovery codes, shown once. A mistyped code shows the same secret again (enrol.ts).
 */
import type { Express, Request, Response } from 'express';
import type { User } from '@svc/accounts';
import { render } from '../ui/html.ts';
import { page } from '../ui/layout.ts';
import { confirmEnrolment, enrolmentOf, enrolRefusalText, type EnrolRefusal } from './enrol.ts';
import { accountFrameOf, formFields, signedInOf, type FactorPageDeps } from './page-kit.ts';
import { hasRecentFactor, markFactorUsed } from './step-up.ts';
import { ENROL_TITLE, enrolBody, RECOVERY_TITLE, recoveryCodesBody, recoveryCodesPage } from './views.ts';
import type { WaitingSignIns } from './waiting-sign-in.ts';
import { ROUTES } from '../http/routes.ts';
import type { PageRefusal } from '@svc/errors';

/** What the form says above it: a refusal of the code (worded by whether the secret stayed), or a sentence. */
type Told = { refused: EnrolRefusal } | { text: string };

/** The enrolment pages of a waiting sign-in and of a signed-in person. */
export function enrolmentRoutes(deps: FactorPageDeps, signIns: WaitingSignIns) {
  const { accounts } = deps;
  const signedIn = signedInOf(deps);
  const framed = accountFrameOf(deps);

  /**
   * The enrolment form posting to `action`: with the secret it showed when `retry` is the
   * fingerprint a refused form carried, else a new one to scan; `framed` in the account frame.
   */
  async function enrolForm(
    req: Request,
    res: Response,
    user: User,
    v: { action: string; required?: true; told?: Told; retry?: unknown; refusal?: PageRefusal; inFrame?: boolean },
  ) {
    const e = await enrolmentOf(accounts, user, v.retry);
    const error = v.told && ('refused' in v.told ? enrolRefusalText(v.told.refused, e.kept) : v.told.text);
    const body = enrolBody({
      csrf: deps.web.csrfToken(req, res),
      action: v.action,
      ...(v.required ? { required: true } : {}),
      error,
      qr: e.qr,
      secret: e.secret,
      shown: e.shown,
    });
    const whole = v.inFrame ? await framed(req, res, user, ENROL_TITLE, body) : page(ENROL_TITLE, body);
    render(res, whole, { refusal: v.refusal });
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
        const show = (told: Told, refusal: PageRefusal | undefined, retry?: unknown) =>
          enrolForm(req, res, w.user, { action: ROUTES.enrol.path, required: true, told, refusal, retry });
        if (!deps.web.csrfValid(req)) return show({ text: 'The form expired. Try again.' }, 'form_expired');
        // A sign-in waiting to enrol never replaces a factor the person set up since it began.
        if (await accounts.factors.hasAny(w.user.id)) return void res.redirect(303, ROUTES.signIn.path);
        const done = await confirmEnrolment(accounts, w.user, formFields(req)['code'], req.ip ?? '');
        if ('refused' in done) return show(done, 'invalid_form', formFields(req)['shown']);
        if (await signIns.finish(req, res, w, 'enrolled')) render(res, recoveryCodesPage(done.codes, w.p.returnTo, w.user.email));
      });

      app.get(ROUTES.totp.path, async (req, res) => {
        const user = await signedIn(req, res);
        if (!user || (await replacingNeedsStepUp(req, res, user))) return;
        await enrolForm(req, res, user, { action: ROUTES.totp.path, inFrame: true });
      });
      app.post(ROUTES.totp.path, async (req, res) => {
        const user = await signedIn(req, res);
        if (!user || (await replacingNeedsStepUp(req, res, user))) return;
        const show = (told: Told, refusal: PageRefusal | undefined, retry?: unknown) =>
          enrolForm(req, res, user, { action: ROUTES.totp.path, told, refusal, retry, inFrame: true });
        if (!deps.web.csrfValid(req)) return show({ text: 'The form expired. Try again.' }, 'form_expired');
        const done = await confirmEnrolment(accounts, user, formFields(req)['code'], req.ip ?? '');
        if ('refused' in done) return show(done, 'invalid_form', formFields(req)['shown']);
        await markFactorUsed(deps.redis, req);
        render(res, await framed(req, res, user, RECOVERY_TITLE, recoveryCodesBody(done.codes, ROUTES.factors.path, user.email)));
      });
    },
  };
}
