/**
 * The passkey routes (docs/auth-service.md "Passkeys"): adding one from the factors page
 * (/factors/passkey), removing one (/factors/passkey/remove: confirmation and step-up), using one
 * at the sign-in's second step (/signin/factor/passkey) or step-up (/factors/step-up/passkey),
 * and the passwordless sign-in (/signin/passkey). Every challenge is single-use and bound to this
 * browser (webauthn-challenge.ts); every counter moves only forward (PasskeyStore.use).
 */
import type { Express, Request, Response } from 'express';
import { MAX_PASSKEYS_PER_ACCOUNT, type Accounts, type Redis, type User } from '@svc/accounts';
import type { Logger } from '@svc/logger';
import { SIGN_IN_ADDRESS_SCOPE, type Throttle, type ThrottleLimits } from '../http/throttle.ts';
import type { WebSessions } from '../http/web-session.ts';
import { render, type SafeHtml } from '../ui/html.ts';
import { safeReturn } from '../pages/return-to.ts';
import { tooMany } from '../http/too-many.ts';
import { credentialOf } from './passkey-form.ts';
import { authenticationOptions, checkAssertion, checkRegistration, registrationOptions, relyingPartyOf, userOfHandle } from './passkey.ts';
import { PASSKEY_SCRIPT } from './passkey-script.ts';
import { FACTOR_AT_FIELD, hasRecentFactor, markFactorUsed, mustUseFactor } from './step-up.ts';
import { webauthnChallenges, type ChallengePurpose } from './webauthn-challenge.ts';
import { accountFrameOf, type AccountFrame } from './page-kit.ts';
import { FACTORS_TITLE, factorsBody, PASSKEY_TITLE, passkeyForm, passkeyRegisterBody, passkeySignInPage } from './views.ts';
import { ROUTES } from '../http/routes.ts';
import type { PageRefusal } from '@svc/errors';

export interface PasskeyDeps {
  redis: Redis;
  accounts: Accounts;
  web: WebSessions;
  logger: Logger;
  secure: boolean;
  authUrl: string;
  /** False when the person may not sign in but through single sign-on (the workspace's policy). */
  mayUseOwnCredentials: (user: User) => Promise<boolean>;
  /** The sign-in address budget (signInPerIp): a passwordless start is a sign-in attempt. */
  throttle: Throttle;
  limits: Pick<ThrottleLimits, 'signInPerIp'>;
  /** The frame of the signed-in person's passkey pages (page-kit.ts). */
  accountFrame?: AccountFrame | undefined;
}

/** The factors page in the account frame, with what a passkey form did (or why it did nothing). */
async function factorsNoticePage(
  deps: PasskeyDeps,
  framed: AccountFrame,
  at: { req: Request; res: Response; user: User },
  notice: string,
  refusal: PageRefusal | undefined,
): Promise<void> {
  const { req, res, user } = at;
  const summary = await deps.accounts.factors.summary(user.id);
  const body = factorsBody(deps.web.csrfToken(req, res), summary, notice, MAX_PASSKEYS_PER_ACCOUNT);
  render(res, await framed(req, res, user, FACTORS_TITLE, body), { refusal });
}

/** The signed-in person, or null with the browser sent to sign in and back here. */
async function signedInPerson(deps: PasskeyDeps, req: Request, res: Response): Promise<User | null> {
  const userId = await deps.web.userOf(req);
  const user = userId ? await deps.accounts.users.get(userId) : null;
  if (!user) res.redirect(303, `/signin?return=${encodeURIComponent(req.originalUrl)}`);
  return user;
}

/**
 * Asking for a passkey and checking its answer, for every page that takes one (sign-in, step-up,
 * an approval of a held call): each challenge kept for this browser and taken once.
 */
function passkeyAssertions(deps: PasskeyDeps, rp: ReturnType<typeof relyingPartyOf>, challenges: ReturnType<typeof webauthnChallenges>) {
  const store = deps.accounts.factors.passkeys;

  /**
   * A form asking for one of `user`'s passkeys (none when they have none), its challenge kept.
   * `bind`: the challenge is given (made of what it approves) and kept with what it was made of.
   */
  async function askFor(
    req: Request,
    res: Response,
    user: User,
    purpose: ChallengePurpose,
    action: string,
    extra?: SafeHtml,
    bind?: { challenge: Uint8Array<ArrayBuffer>; bound: string; label: string },
  ) {
    const list = await store.list(user.id);
    if (list.length === 0) return undefined;
    const options = await authenticationOptions(rp, list, bind?.challenge);
    await challenges.keep(res, { challenge: options.challenge, purpose, userId: user.id, ...(bind ? { bound: bind.bound } : {}) });
    return passkeyForm(deps.web.csrfToken(req, res), action, 'get', options, bind?.label ?? 'Use a passkey', extra);
  }

  /**
   * True when the form's assertion answers this browser's challenge for `purpose` with a passkey
   * of `userId` ('' for passwordless: the passkey names the person), its counter moved forward;
   * with `bound`, only a challenge made of that (an approval's call and nonce).
   */
  async function asserted(req: Request, res: Response, purpose: ChallengePurpose, userId: string, bound?: string): Promise<User | string> {
    const got = credentialOf(req.body, 'assertion');
    if ('problem' in got) return got.problem;
    // The challenge is taken first, whatever follows: it answers one assertion, right or wrong.
    const taken = await challenges.take(req, res, purpose, userId);
    // A bound challenge answers only for what it was made of (an approval's call): not another.
    const challenge = taken && (taken.bound ?? '') === (bound ?? '') ? taken : null;
    const owner = userId || userOfHandle(got.credential.response.userHandle);
    const passkey = owner && challenge ? await store.get(owner, got.credential.id) : null;
    if (!owner || !challenge || !passkey) return 'That passkey was not accepted. Try again.';
    let counter: number | null = null;
    try {
      counter = await checkAssertion(rp, got.credential, challenge.challenge, passkey, purpose === 'passwordless');
    } catch (err) {
      deps.logger.info('passkey assertion refused', { detail: err instanceof Error ? err.message : 'unknown' });
    }
    if (counter === null || !(await store.use(owner, passkey.id, counter))) return 'That passkey was not accepted. Try again.';
    return (await deps.accounts.users.get(owner)) ?? 'That passkey was not accepted. Try again.';
  }

  return { askFor, asserted };
}

export function passkeys(deps: PasskeyDeps) {
  const { accounts } = deps;
  const rp = relyingPartyOf(deps.authUrl);
  const challenges = webauthnChallenges(deps);
  const store = accounts.factors.passkeys;
  const framed = accountFrameOf(deps);

  const { askFor, asserted } = passkeyAssertions(deps, rp, challenges);

  async function registerPage(req: Request, res: Response, user: User, error?: string, refusal?: PageRefusal) {
    const options = await registrationOptions(rp, user, await store.list(user.id));
    await challenges.keep(res, { challenge: options.challenge, purpose: 'register', userId: user.id });
    const body = passkeyRegisterBody(deps.web.csrfToken(req, res), options, error);
    render(res, await framed(req, res, user, PASSKEY_TITLE, body), { refusal });
  }

  const factorsNotice = (req: Request, res: Response, user: User, notice: string, refusal?: PageRefusal) =>
    factorsNoticePage(deps, framed, { req, res, user }, notice, refusal);

  return {
    askFor,
    asserted,

    mount(app: Express): void {
      app.get(ROUTES.passkeyScript.path, (_req, res) => {
        res.type('application/javascript').set('Cache-Control', 'no-cache').send(PASSKEY_SCRIPT);
      });

      app.get(ROUTES.passkeys.path, async (req, res) => {
        const user = await signedInPerson(deps, req, res);
        if (!user) return;
        // Adding a factor to an account that has one is a step-up action, as replacing TOTP is.
        if ((await accounts.factors.hasAny(user.id)) && !(await hasRecentFactor(deps.redis, req))) {
          return void res.redirect(303, '/factors/step-up?return=%2Ffactors%2Fpasskey');
        }
        if ((await store.count(user.id)) >= MAX_PASSKEYS_PER_ACCOUNT) {
          return factorsNotice(req, res, user, `An account may hold ${MAX_PASSKEYS_PER_ACCOUNT} passkeys; remove one first.`, 'conflict');
        }
        await registerPage(req, res, user);
      });
      app.post(ROUTES.passkeys.path, async (req, res) => {
        const user = await signedInPerson(deps, req, res);
        if (!user) return;
        if (!deps.web.csrfValid(req)) return registerPage(req, res, user, 'The form expired. Try again.', 'form_expired');
        if ((await accounts.factors.hasAny(user.id)) && !(await hasRecentFactor(deps.redis, req))) {
          return void res.redirect(303, '/factors/step-up?return=%2Ffactors%2Fpasskey');
        }
        const got = credentialOf(req.body, 'attestation');
        if ('problem' in got) return registerPage(req, res, user, got.problem, 'invalid_form');
        const challenge = await challenges.take(req, res, 'register', user.id);
        if (!challenge) return registerPage(req, res, user, 'The passkey setup expired. Try again.', 'invalid_form');
        let passkey = null;
        try {
          passkey = await checkRegistration(rp, got.credential, challenge.challenge);
        } catch (err) {
          deps.logger.info('passkey registration refused', { detail: err instanceof Error ? err.message : 'unknown' });
        }
        if (!passkey) return registerPage(req, res, user, 'That passkey was not accepted. Try again.', 'invalid_form');
        if ((await store.add(user.id, passkey)) === 'full') {
          return factorsNotice(req, res, user, `An account may hold ${MAX_PASSKEYS_PER_ACCOUNT} passkeys; remove one first.`, 'conflict');
        }
        await markFactorUsed(deps.redis, req);
        await accounts.audit.recordOwn(user, 'factor.enrolled', { source: req.ip ?? '' }, { factor: 'passkey' });
        await factorsNotice(req, res, user, 'The passkey was added.');
      });
      // Removing a factor is a step-up action: whoever holds only the session cannot take it off.
      app.post(ROUTES.passkeyRemove.path, async (req, res) => {
        const user = await signedInPerson(deps, req, res);
        if (!user) return;
        const body = (req.body ?? {}) as Record<string, unknown>;
        if (!deps.web.csrfValid(req) || body['confirm'] !== 'yes' || typeof body['id'] !== 'string') {
          return factorsNotice(req, res, user, 'Tick the box to confirm. Nothing was removed.', 'invalid_form');
        }
        if (!(await hasRecentFactor(deps.redis, req))) return void res.redirect(303, '/factors/step-up?return=%2Ffactors');
        const s = await accounts.factors.summary(user.id);
        const last = s.totp === null && s.passkeys.length === 1;
        if (last && (await mustUseFactor(accounts, user))) {
          return factorsNotice(
            req,
            res,
            user,
            'Your workspace requires a second factor: add another one before removing this one.',
            'conflict',
          );
        }
        if (!(await store.remove(user.id, body['id'])))
          return factorsNotice(req, res, user, 'No such passkey. Nothing was removed.', 'not_found');
        await accounts.audit.recordOwn(user, 'factor.removed', { source: req.ip ?? '' }, { factor: 'passkey' });
        await factorsNotice(req, res, user, 'The passkey was removed.');
      });

      /**
       * A passwordless page and its challenge (kept in Redis for WEBAUTHN_CHALLENGE_TTL_SECONDS):
       * each counts as a sign-in attempt of the address (signInPerIp, given back when it signs in),
       * so no address can fill Redis with challenges (docs/auth-service.md "Passkeys").
       */
      async function passwordlessPage(req: Request, res: Response, returnTo: string, error?: string, refusal?: PageRefusal) {
        const wait = await deps.throttle.attempt(SIGN_IN_ADDRESS_SCOPE, req.ip ?? 'unknown', deps.limits.signInPerIp);
        if (wait > 0) return tooMany(res, wait, { returnTo, csrf: deps.web.csrfToken(req, res), reset: false });
        const options = await authenticationOptions(rp, null);
        await challenges.keep(res, { challenge: options.challenge, purpose: 'passwordless', userId: '' });
        render(res, passkeySignInPage(deps.web.csrfToken(req, res), options, returnTo, error), { refusal });
      }
      app.get(ROUTES.passkeySignIn.path, (req, res) => passwordlessPage(req, res, safeReturn(req.query['return'])));
      app.post(ROUTES.passkeySignIn.path, async (req, res) => {
        const returnTo = safeReturn((req.body as Record<string, unknown> | undefined)?.['return']);
        const again = (error: string, refusal: PageRefusal) => passwordlessPage(req, res, returnTo, error, refusal);
        if (!deps.web.csrfValid(req)) return again('The form expired. Try again.', 'form_expired');
        const who = await asserted(req, res, 'passwordless', '');
        if (typeof who === 'string') return again(who, 'invalid_form');
        if (!(await deps.mayUseOwnCredentials(who))) return again('Your workspace requires single sign-on. Sign in with it.', 'forbidden');
        // A passkey that verified its user (PIN, biometrics) is two factors at once (WebAuthn Level 3 §6.2.3).
        await deps.throttle.refund(SIGN_IN_ADDRESS_SCOPE, req.ip ?? 'unknown');
        await deps.web.start(req, res, who.id, { fields: { [FACTOR_AT_FIELD]: String(Date.now()) } });
        await accounts.audit.recordOwn(who, 'signin.succeeded', { source: req.ip ?? '' }, { factor: 'passkey' });
        res.redirect(303, returnTo);
      });
    },
  };
}
