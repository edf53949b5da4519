/**
 * The interaction pages oidc-provider sends the browser to (`/interaction/:uid`, where its
 * interaction cookie is scoped). Login is handed to our sign-in pages and finished from our
 * session; consent renders the page of the client's profile and records the Grant
 * (consent-page.ts); a person without access requests it (request-access-page.ts) or, without a
 * project, creates one (create-project-page.ts). Every form is read by interaction-forms.ts.
 */
import type { Request, Response } from 'express';
import { consentPage } from './consent-page.ts';
import { refusalPage } from './consent-views.ts';
import { createProjectPage } from './create-project-page.ts';
import { render } from '../ui/html.ts';
import { interactionForms, type InteractionDeps } from './interaction-forms.ts';
import { requestAccessPage } from './request-access-page.ts';

/** The handlers of the interaction routes (mounted in mount-pages.ts). */
export function interactionPages(deps: InteractionDeps) {
  const { provider } = deps;
  const forms = interactionForms(deps);
  const consent = consentPage(deps, forms);

  return {
    async get(req: Request, res: Response): Promise<void> {
      const loaded = await forms.load(req, res);
      if (!loaded) return;
      const { details, user } = loaded;
      const back = `/interaction/${details.uid}`;
      if (!user) return void res.redirect(303, `/signin?return=${encodeURIComponent(back)}`);
      if (details.prompt.name === 'login') {
        await provider.interactionFinished(req, res, { login: { accountId: user.id } }, { mergeWithLastSubmission: false });
        return;
      }
      if (details.session?.accountId !== user.id) return void res.redirect(303, `/signin?return=${encodeURIComponent(back)}`);
      await consent.show(req, res, details, user);
    },

    consent: consent.approve,

    requestAccess: requestAccessPage(deps, forms),

    createProject: createProjectPage(deps, forms, consent),

    /** "Send the link again" from the page an unconfirmed address gets. */
    async resendConfirmation(req: Request, res: Response): Promise<void> {
      const loaded = await forms.load(req, res);
      if (!loaded) return;
      const { details, user } = loaded;
      if (!user || details.session?.accountId !== user.id || !deps.web.csrfValid(req))
        return void render(res, refusalPage('Not sent', 'The form expired or you were signed out. Start again on your device.'), {
          refusal: 'form_expired',
        });
      if (user.emailVerifiedAt) return void res.redirect(303, `/interaction/${details.uid}`);
      forms.confirmFirst(req, res, details, user, await deps.verification.send(user));
    },

    async abort(req: Request, res: Response): Promise<void> {
      const loaded = await forms.load(req, res);
      if (!loaded) return;
      if (!deps.web.csrfValid(req))
        return void render(res, refusalPage('Not cancelled', 'The form expired. Start again.'), { refusal: 'form_expired' });
      await provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'the person declined the request' },
        { mergeWithLastSubmission: false },
      );
    },
  };
}
