/**
 * GET/POST /signin: email and password (docs/contract.md "Accounts"). Failures are throttled per
 * IP and per account (docs/auth-service.md "Sign-in protections"); the form carries a CSRF token.
 */
import type { Request, Response } from 'express';
import type { Accounts, Redis, User } from '@svc/accounts';
import type Provider from 'oidc-provider';
import { displayClientName } from '../oauth/client-names.ts';
import { isProfile, profileName } from '../oauth/clients.ts';
import type { Logger } from '@svc/logger';
import { SIGN_IN_ADDRESS_SCOPE, type Throttle, type ThrottleLimits } from '../http/throttle.ts';
import type { WebSessions } from '../http/web-session.ts';
import { csrfField } from '../http/web-session.ts';
import { html, render, type SafeHtml } from '../ui/html.ts';
import { errorLine, page } from '../ui/layout.ts';
import { safeReturn } from './return-to.ts';
import type { Sso } from '../sso/create-sso.ts';
import { SsoError } from '@svc/sso';
import { tooMany } from '../http/too-many.ts';
import { pageRefusalOf } from '@svc/errors';

export interface PageDeps {
  redis: Redis;
  accounts: Accounts;
  web: WebSessions;
  throttle: Throttle;
  limits: ThrottleLimits;
  logger: Logger;
}

/**
 * The sign-in page reads the waiting authorization through the provider's models (its public API),
 * and asks single sign-on which way an address signs in (docs/auth-service.md "Single sign-on").
 */
export type SignInDeps = PageDeps & {
  provider: Pick<Provider, 'Interaction' | 'Client'>;
  sso: Pick<Sso, 'route' | 'start'>;
  /** After a right password: true when the second factor's step answered (docs/auth-service.md "Second factor"). */
  afterPassword?: (req: Request, res: Response, user: User, returnTo: string) => Promise<boolean>;
};

/**
 * What the person is signing in for (docs/auth-service.md "No dead ends"): the app of the
 * authorization waiting at `returnTo`, or the device flow; null for a plain sign-in. The client
 * is found as the consent page finds it (`Client.find`), so both name it alike.
 */
async function purposeOf(provider: SignInDeps['provider'], returnTo: string): Promise<SafeHtml | null> {
  if (returnTo.startsWith('/device')) return html`You are signing in to connect a device (it showed you a code).`;
  const uid = /^\/interaction\/([A-Za-z0-9_-]+)$/.exec(returnTo)?.[1];
  if (!uid) return null;
  const interaction = await provider.Interaction.find(uid);
  const clientId = interaction?.params['client_id'];
  if (typeof clientId !== 'string' || !clientId) return null;
  if (isProfile(clientId)) return html`You are signing in for the ${profileName(clientId)}.`;
  const client = await provider.Client.find(clientId);
  return html`You are signing in for <bdi>${displayClientName(client?.clientName ?? clientId)}</bdi>, an app not verified by svc.`;
}

/** The sign-in page: `purpose` says what the sign-in is for, `error` why the last attempt failed. */
export function signInPage(csrf: string, returnTo: string, email = '', error?: string, purpose: SafeHtml | null = null): SafeHtml {
  return page('Sign in', signInForm(csrf, returnTo, email, error, purpose));
}

function signInForm(csrf: string, returnTo: string, email: string, error: string | undefined, purpose: SafeHtml | null): SafeHtml {
  return html`${purpose && html`<p>${purpose}</p>`}${errorLine(error)}<form method="post" action="/signin">${csrfField(csrf)}
<input type="hidden" name="return" value="${returnTo}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" value="${email}" required autofocus>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
<button type="submit" name="sso" value="1" class="secondary" formnovalidate>Continue with single sign-on</button></form>
<p><a href="/signin/passkey?return=${encodeURIComponent(returnTo)}">Sign in with a passkey</a></p>
<nav><a href="/forgot">Forgot your password?</a> · No account yet? <a href="/signup?return=${encodeURIComponent(returnTo)}">Create one</a></nav>`;
}

/** A sign-in in the person's own workspace's audit log (docs/audit.md). */
async function audit(
  deps: PageDeps,
  workspace: string,
  email: string,
  action: 'signin.succeeded' | 'signin.failed',
  ip: string,
): Promise<void> {
  await deps.accounts.audit.recordOwn({ workspace, email }, action, { source: ip });
}

export function signIn(deps: SignInDeps) {
  return {
    async get(req: Request, res: Response): Promise<void> {
      const returnTo = safeReturn(req.query['return']);
      const purpose = await purposeOf(deps.provider, returnTo).catch(() => null);
      render(res, signInPage(deps.web.csrfToken(req, res), returnTo, '', undefined, purpose));
    },
    async post(req: Request, res: Response): Promise<void> {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const returnTo = safeReturn(body['return']);
      const email = typeof body['email'] === 'string' ? body['email'].trim().toLowerCase().slice(0, 320) : '';
      const password = typeof body['password'] === 'string' ? body['password'] : '';
      if (!deps.web.csrfValid(req)) {
        render(res, signInPage(deps.web.csrfToken(req, res), returnTo, email, 'The form expired. Try again.'), { refusal: 'form_expired' });
        return;
      }
      const ip = req.ip ?? 'unknown';
      const slowed = (seconds: number) => tooMany(res, seconds, { returnTo, csrf: deps.web.csrfToken(req, res), reset: true });
      // Each limit is checked and counted in one step (throttle.ts); the fixed windows are given
      // back when the password is right, so only failures count. The address's budget is the
      // largest (many people may share one address); the account and address together stop one
      // address guessing one account without touching the owner elsewhere; the account's backoff,
      // from every address, stops guessing spread over many (docs/auth-service.md "Sign-in protections").
      const accountSource = `${email}|${ip}`;
      const ipWait = await deps.throttle.attempt(SIGN_IN_ADDRESS_SCOPE, ip, deps.limits.signInPerIp);
      if (ipWait > 0) return slowed(ipWait);
      // Home-realm discovery: an address at a workspace's proven domain may go to its provider. It
      // comes after the address's budget, and counts in it: each start reads the provider's
      // discovery, so one address cannot make svc fetch it without bound.
      const route = await deps.sso.route({ email, passwordGiven: password !== '', ssoAsked: body['sso'] === '1' });
      if (route.kind === 'provider') {
        try {
          return await deps.sso.start(res, route.workspace, email, returnTo);
        } catch (err) {
          // The provider cannot be reached or read: said on the sign-in page, the detail logged.
          if (!(err instanceof SsoError)) throw err;
          deps.logger.warn('sso start failed', { status: err.status, detail: err.detail });
          render(res, signInPage(deps.web.csrfToken(req, res), returnTo, email, err.message), { refusal: pageRefusalOf(err.status) });
          return;
        }
      }
      if (route.kind === 'refused') {
        deps.logger.info('password sign-in refused: single sign-on', { refusal: route.refusal });
        render(res, signInPage(deps.web.csrfToken(req, res), returnTo, email, route.message), { refusal: route.refusal });
        return;
      }
      if (email) {
        const pairWait = await deps.throttle.attempt('signin-account', accountSource, deps.limits.signInPerAccount);
        const accountWait = pairWait > 0 ? 0 : await deps.throttle.backoff('signin-backoff', email, deps.limits.signInAccountBackoff);
        if (pairWait > 0 || accountWait > 0) {
          await deps.throttle.refund(SIGN_IN_ADDRESS_SCOPE, ip);
          if (accountWait > 0) await deps.throttle.refund('signin-account', accountSource);
          return slowed(Math.max(pairWait, accountWait));
        }
      }
      const user = email && password ? await deps.accounts.users.verifyPassword(email, password) : null;
      if (!user) {
        deps.logger.info('sign-in refused', { ip });
        const known = email ? await deps.accounts.users.findByEmail(email) : null;
        if (known) await audit(deps, known.workspace, email, 'signin.failed', ip);
        render(res, signInPage(deps.web.csrfToken(req, res), returnTo, email, 'Wrong email or password.'), {
          refusal: 'wrong_credentials',
        });
        return;
      }
      await deps.throttle.reset('signin-account', accountSource);
      await deps.throttle.reset('signin-backoff', email);
      await deps.throttle.refund(SIGN_IN_ADDRESS_SCOPE, ip);
      if (await deps.afterPassword?.(req, res, user, returnTo)) return;
      await audit(deps, user.workspace, user.email, 'signin.succeeded', ip);
      await deps.web.start(req, res, user.id);
      res.redirect(303, returnTo);
    },
  };
}
