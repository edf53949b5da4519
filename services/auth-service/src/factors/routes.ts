/**
 * The second-factor routes (docs/auth-service.md "Second factor"): the sign-in's second step
 * (/signin/factor) and its enrolment when the workspace requires one (/signin/enrol); the
 * account's factors (/factors), and the step-up page (/factors/step-up). `afterPassword` is the
 * sign-in page's hook: it decides whether a right password starts a session or waits here.
 */
import type { Express, Request, Response } from 'express';
import { MAX_PASSKEYS_PER_ACCOUNT, type Accounts, type Redis, type User } from '@svc/accounts';
import type { Logger } from '@svc/logger';
import type { Throttle, ThrottleLimits } from '../http/throttle.ts';
import type { WebSessions } from '../http/web-session.ts';
import { html, render } from '../pages/html.ts';
import { safeReturn } from '../pages/return-to.ts';
import { tooMany } from '../pages/too-many.ts';
import { checkTypedFactor } from './check.ts';
import { confirmEnrolment, enrolmentOf } from './enrol.ts';
import { pendingSignIns, type PendingSignIn } from './pending.ts';
import { PASSKEY_FORMS, passkeys, type PasskeyDeps } from './passkey-routes.ts';
import { FACTOR_AT_FIELD, hasRecentFactor, markFactorUsed, mustUseFactor, STEP_UP_MINUTES } from './step-up.ts';
import { enrolFirstPage, enrolPage, factorPage, factorsPage, recoveryCodesPage, stepUpPage } from './views.ts';

/** The forms these routes read (the app parses their bodies). */
export const FACTOR_FORMS = [
  '/signin/factor',
  '/signin/enrol',
  '/factors/totp',
  '/factors/totp/remove',
  '/factors/step-up',
  ...PASSKEY_FORMS,
];

export interface FactorDeps {
  redis: Redis;
  accounts: Accounts;
  web: WebSessions;
  throttle: Throttle;
  limits: ThrottleLimits;
  logger: Logger;
  secure: boolean;
  authUrl: string;
  mayUseOwnCredentials: PasskeyDeps['mayUseOwnCredentials'];
}

const form = (req: Request) => (req.body ?? {}) as Record<string, unknown>;

export function secondFactor(deps: FactorDeps) {
  const { accounts } = deps;
  const pending = pendingSignIns(deps);
  const pk = passkeys(deps);
  const check = (userId: string, body: Record<string, unknown>) =>
    checkTypedFactor({ accounts, throttle: deps.throttle, rule: deps.limits.secondFactorPerAccount }, userId, body);

  /** The session of a sign-in that waited for its factor: an SSO sign-in's keeps its shorter life. */
  const startSession = (req: Request, res: Response, p: PendingSignIn) =>
    deps.web.start(req, res, p.userId, {
      fields: { [FACTOR_AT_FIELD]: String(Date.now()) },
      ...(p.sessionSeconds ? { ttlSeconds: p.sessionSeconds } : {}),
    });
  /** Its audit detail: the factor, and the workspace whose provider it began at, if any. */
  const signedInDetail = (p: PendingSignIn, factor: string) => ({ factor, ...(p.via ? { method: 'sso', workspace: p.via } : {}) });

  /** The session starts once the factor is given; the waiting sign-in ends in the same step. */
  async function finish(req: Request, res: Response, user: User, p: PendingSignIn): Promise<void> {
    if (!(await pending.finish(req, res))) return void res.redirect(303, '/signin');
    await startSession(req, res, p);
    await accounts.audit.recordOwn(user, 'signin.succeeded', { source: req.ip ?? '' }, signedInDetail(p, 'second'));
    res.redirect(303, p.returnTo);
  }

  /** Asks for the factor (`has`) or its enrolment, with no session yet; the page that does. */
  async function wait(res: Response, p: Omit<PendingSignIn, 'stage'>, has: boolean): Promise<string> {
    await pending.start(res, { ...p, stage: has ? 'verify' : 'enrol' });
    return has ? '/signin/factor' : '/signin/enrol';
  }

  async function waiting(req: Request, res: Response, stage: 'verify' | 'enrol') {
    const p = await pending.get(req);
    const user = p?.stage === stage ? await accounts.users.get(p.userId) : null;
    if (!p || !user) {
      res.redirect(303, '/signin');
      return null;
    }
    return { p, user };
  }

  async function signedIn(req: Request, res: Response): Promise<User | null> {
    const userId = await deps.web.userOf(req);
    const user = userId ? await accounts.users.get(userId) : null;
    if (!user) res.redirect(303, `/signin?return=${encodeURIComponent(req.originalUrl)}`);
    return user;
  }

  /** Replacing an existing factor is a step-up action, as removing it is: a stolen session cannot swap it. */
  async function replacingNeedsStepUp(req: Request, res: Response, user: User): Promise<boolean> {
    if (!(await accounts.factors.hasAny(user.id)) || (await hasRecentFactor(deps.redis, req))) return false;
    res.redirect(303, '/factors/step-up');
    return true;
  }

  const csrfOk = (req: Request, res: Response, page: () => void): boolean => {
    if (deps.web.csrfValid(req)) return true;
    res.status(403);
    page();
    return false;
  };

  return {
    /**
     * The sign-in page's hook, after a right password: a person with a factor is asked for it, a
     * person whose workspace requires one and who has none sets one up; true when it answered.
     */
    async afterPassword(req: Request, res: Response, user: User, returnTo: string): Promise<boolean> {
      const has = await accounts.factors.hasAny(user.id);
      if (!has && !(await mustUseFactor(accounts, user))) return false;
      res.redirect(303, await wait(res, { userId: user.id, returnTo }, has));
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
      return wait(res, { userId: user.id, ...p }, await accounts.factors.hasAny(user.id));
    },

    mount(app: Express): void {
      pk.mount(app);
      app.get('/signin/factor', async (req, res) => {
        const w = await waiting(req, res, 'verify');
        if (!w) return;
        render(
          res,
          factorPage(deps.web.csrfToken(req, res), undefined, await pk.askFor(req, res, w.user, 'factor', '/signin/factor/passkey')),
        );
      });
      app.post('/signin/factor/passkey', async (req, res) => {
        const w = await waiting(req, res, 'verify');
        if (!w) return;
        const again = async (error: string, status: number) =>
          render(
            res,
            factorPage(deps.web.csrfToken(req, res), error, await pk.askFor(req, res, w.user, 'factor', '/signin/factor/passkey')),
            {
              status,
            },
          );
        if (!csrfOk(req, res, () => void again('The form expired. Try again.', 403))) return;
        const who = await pk.asserted(req, res, 'factor', w.user.id);
        if (typeof who === 'string') {
          await accounts.audit.recordOwn(w.user, 'signin.factor_failed', { source: req.ip ?? '' });
          return again(who, 400);
        }
        await finish(req, res, w.user, w.p);
      });
      app.post('/signin/factor', async (req, res) => {
        const w = await waiting(req, res, 'verify');
        if (!w) return;
        const again = (error: string, status: number) => render(res, factorPage(deps.web.csrfToken(req, res), error), { status });
        if (!csrfOk(req, res, () => again('The form expired. Try again.', 403))) return;
        const result = await check(w.user.id, form(req));
        if (!result.ok) {
          if (result.waitSeconds > 0) return tooMany(res, result.waitSeconds, { csrf: deps.web.csrfToken(req, res), reset: false });
          await accounts.audit.recordOwn(w.user, 'signin.factor_failed', { source: req.ip ?? '' });
          return again('That code is not right, or was used already.', 401);
        }
        if (result.recovery) await accounts.audit.recordOwn(w.user, 'factor.recovery_used', { source: req.ip ?? '' });
        await finish(req, res, w.user, w.p);
      });
      app.get('/signin/enrol', async (req, res) => {
        const w = await waiting(req, res, 'enrol');
        if (!w) return;
        const e = await enrolmentOf(accounts, w.user);
        render(res, enrolPage({ csrf: deps.web.csrfToken(req, res), action: '/signin/enrol', required: true, ...e }));
      });
      app.post('/signin/enrol', async (req, res) => {
        const w = await waiting(req, res, 'enrol');
        if (!w) return;
        const show = async (error: string, status: number) => {
          const e = await enrolmentOf(accounts, w.user);
          render(res, enrolPage({ csrf: deps.web.csrfToken(req, res), action: '/signin/enrol', required: true, error, ...e }), { status });
        };
        if (!deps.web.csrfValid(req)) return show('The form expired. Try again.', 403);
        // A sign-in waiting to enrol never replaces a factor the person set up since it began.
        if (await accounts.factors.hasAny(w.user.id)) return void res.redirect(303, '/signin');
        const done = await confirmEnrolment(accounts, w.user, form(req)['code'], req.ip ?? '');
        if ('error' in done) return show(done.error, 400);
        if (!(await pending.finish(req, res))) return void res.redirect(303, '/signin');
        await startSession(req, res, w.p);
        await accounts.audit.recordOwn(w.user, 'signin.succeeded', { source: req.ip ?? '' }, signedInDetail(w.p, 'enrolled'));
        render(res, recoveryCodesPage(done.codes, w.p.returnTo));
      });

      app.get('/factors', async (req, res) => {
        const user = await signedIn(req, res);
        if (user)
          render(
            res,
            factorsPage(deps.web.csrfToken(req, res), await accounts.factors.summary(user.id), undefined, MAX_PASSKEYS_PER_ACCOUNT),
          );
      });
      app.get('/factors/totp', async (req, res) => {
        const user = await signedIn(req, res);
        if (!user || (await replacingNeedsStepUp(req, res, user))) return;
        const e = await enrolmentOf(accounts, user);
        render(res, enrolPage({ csrf: deps.web.csrfToken(req, res), action: '/factors/totp', ...e }));
      });
      app.post('/factors/totp', async (req, res) => {
        const user = await signedIn(req, res);
        if (!user || (await replacingNeedsStepUp(req, res, user))) return;
        const show = async (error: string, status: number) => {
          const e = await enrolmentOf(accounts, user);
          render(res, enrolPage({ csrf: deps.web.csrfToken(req, res), action: '/factors/totp', error, ...e }), { status });
        };
        if (!deps.web.csrfValid(req)) return show('The form expired. Try again.', 403);
        const done = await confirmEnrolment(accounts, user, form(req)['code'], req.ip ?? '');
        if ('error' in done) return show(done.error, 400);
        await markFactorUsed(deps.redis, req);
        render(res, recoveryCodesPage(done.codes, '/factors'));
      });
      // Removing a factor is a step-up action: whoever holds only the session cannot take it off.
      app.post('/factors/totp/remove', async (req, res) => {
        const user = await signedIn(req, res);
        if (!user) return;
        const summary = await accounts.factors.summary(user.id);
        if (!deps.web.csrfValid(req) || form(req)['confirm'] !== 'yes') {
          return render(res, factorsPage(deps.web.csrfToken(req, res), summary, 'Tick the box to confirm. Nothing was removed.'), {
            status: 400,
          });
        }
        if (!(await hasRecentFactor(deps.redis, req))) return void res.redirect(303, '/factors/step-up?return=%2Ffactors');
        if (summary.passkeys.length === 0 && (await mustUseFactor(accounts, user))) {
          const why =
            'Your workspace requires a second factor: set up a new authenticator app instead, which replaces this one, or add a passkey first.';
          return render(res, factorsPage(deps.web.csrfToken(req, res), summary, why), { status: 409 });
        }
        await accounts.factors.removeTotp(user.id);
        await accounts.audit.recordOwn(user, 'factor.removed', { source: req.ip ?? '' }, { factor: 'totp' });
        render(
          res,
          factorsPage(deps.web.csrfToken(req, res), await accounts.factors.summary(user.id), 'The authenticator app was removed.'),
        );
      });
      app.get('/factors/step-up', async (req, res) => {
        const user = await signedIn(req, res);
        if (!user) return;
        if (!(await accounts.factors.hasAny(user.id))) return render(res, enrolFirstPage(), { status: 403 });
        const returnTo = safeReturn(req.query['return']);
        const passkey = await pk.askFor(
          req,
          res,
          user,
          'step-up',
          '/factors/step-up/passkey',
          html`<input type="hidden" name="return" value="${returnTo}">`,
        );
        render(res, stepUpPage(deps.web.csrfToken(req, res), returnTo, STEP_UP_MINUTES, undefined, passkey));
      });
      app.post('/factors/step-up/passkey', async (req, res) => {
        const user = await signedIn(req, res);
        if (!user) return;
        const returnTo = safeReturn(form(req)['return']);
        if (!deps.web.csrfValid(req))
          return render(res, stepUpPage(deps.web.csrfToken(req, res), returnTo, STEP_UP_MINUTES, 'The form expired. Try again.'), {
            status: 403,
          });
        const who = await pk.asserted(req, res, 'step-up', user.id);
        if (typeof who === 'string')
          return render(res, stepUpPage(deps.web.csrfToken(req, res), returnTo, STEP_UP_MINUTES, who), { status: 400 });
        await markFactorUsed(deps.redis, req);
        res.redirect(303, returnTo);
      });
      app.post('/factors/step-up', async (req, res) => {
        const user = await signedIn(req, res);
        if (!user) return;
        const returnTo = safeReturn(form(req)['return']);
        const again = (error: string, status: number) =>
          render(res, stepUpPage(deps.web.csrfToken(req, res), returnTo, STEP_UP_MINUTES, error), { status });
        if (!deps.web.csrfValid(req)) return again('The form expired. Try again.', 403);
        const result = await check(user.id, { code: form(req)['code'] });
        if (!result.ok) {
          if (result.waitSeconds > 0)
            return tooMany(res, result.waitSeconds, { returnTo, csrf: deps.web.csrfToken(req, res), reset: false });
          return again('That code is not right, or was used already.', 401);
        }
        await markFactorUsed(deps.redis, req);
        res.redirect(303, returnTo);
      });
    },
  };
}
