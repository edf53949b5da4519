/**
 * You > Account routes (docs/dashboard.md "Account"): the page, the password, and revoking the
 * person's own keys, apps and sessions.
 */
import type { Router } from 'express';
import { ManagementError, type Actor } from '@svc/management';
import { render } from '../../ui/html.ts';
import { isProfile, profileName } from '../../oauth/clients.ts';
import { formOf } from '../form.ts';
import { back, param, personOf, str, type Kit } from '../kit.ts';
import { ACCOUNT_FORMS } from './forms.ts';
import { accountPage, changePasswordPage } from './view.ts';

export function accountRoutes(router: Router, { deps, now, page$, frame, submit }: Kit): void {
  /** One audit entry for sessions the person ended from the account page. */
  async function sessionEnded(actor: Actor, count: string): Promise<void> {
    const user = await deps.accounts.users.get(personOf(actor));
    if (user) await deps.accounts.audit.recordOwn(user, 'session.ended', actor, { sessions: count });
  }

  router.get(
    '/account',
    page$(async (req, res, actor) => {
      const f = await frame(req, res, actor, 'account', {});
      const sessions = await deps.web.list(req, personOf(actor));
      const info = await deps.management.account(actor);
      // First-party apps by their own names; any other name is the app's claim (docs/dashboard.md "Account").
      const apps = (await deps.management.myApps(actor)).map((a) => ({
        ...a,
        client: isProfile(a.clientId) ? profileName(a.clientId) : a.client,
        verified: isProfile(a.clientId),
      }));
      // A page of the person's requests (docs/management.md "Lists and pages"); `requests` is its cursor.
      const mine = await deps.management.myAccessRequests(actor, { cursor: str(req.query['requests']) });
      render(
        res,
        accountPage(f, {
          ...info,
          apps,
          sessions,
          requests: mine.requests,
          olderRequests: mine.next,
          emailOn: deps.verification.enabled,
          now: now(),
        }),
      );
    }),
  );
  router.get(
    '/account/password',
    page$(async (req, res, actor) => {
      render(res, changePasswordPage(await frame(req, res, actor, 'account', {}), {}));
    }),
  );
  router.post(
    ACCOUNT_FORMS.password.path,
    page$(async (req, res, actor) => {
      await submit(
        req,
        res,
        actor,
        { section: 'account', at: {} },
        async () => {
          const form = formOf(req, ACCOUNT_FORMS.password);
          await deps.management.changePassword(actor, form.current, form.password);
          // Whoever else was signed in with the old password is signed out; this browser stays.
          await deps.web.endOthers(req, personOf(actor));
          back(res, '/dashboard/account', 'password-changed');
        },
        (f, err) => changePasswordPage(f, { error: { field: err.field ?? 'password', message: err.message } }),
      );
    }),
  );
  router.post(
    ACCOUNT_FORMS.revokeKey.path,
    page$(async (req, res, actor) => {
      await deps.management.revokePersonalKey(actor, param(req, 'id'));
      back(res, '/dashboard/account', 'personal-key-revoked');
    }),
  );
  router.post(
    ACCOUNT_FORMS.revokeApp.path,
    page$(async (req, res, actor) => {
      await deps.management.revokeApp(actor, param(req, 'id'));
      back(res, '/dashboard/account', 'app-revoked');
    }),
  );
  router.post(
    ACCOUNT_FORMS.endSession.path,
    page$(async (req, res, actor) => {
      const userId = personOf(actor);
      if (!(await deps.web.endOne(userId, param(req, 'handle')))) throw new ManagementError(404, 'There is no such session of yours.');
      await sessionEnded(actor, '1');
      back(res, '/dashboard/account', 'session-ended');
    }),
  );
  router.post(
    ACCOUNT_FORMS.endOthers.path,
    page$(async (req, res, actor) => {
      const n = await deps.web.endOthers(req, personOf(actor));
      await sessionEnded(actor, String(n));
      back(res, '/dashboard/account', 'sessions-ended');
    }),
  );
  router.post(
    ACCOUNT_FORMS.verifyEmail.path,
    page$(async (req, res, actor) => {
      if (!deps.verification.enabled) return back(res, '/dashboard/account', 'email-off');
      const user = await deps.accounts.users.get(personOf(actor));
      const sent = user ? await deps.verification.send(user) : false;
      back(res, '/dashboard/account', sent || user?.emailVerifiedAt ? 'verification-sent' : 'verification-held');
    }),
  );
}
