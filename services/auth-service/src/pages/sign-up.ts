/**
 * GET/POST /signup: a free account with its personal workspace (docs/contract.md "Accounts";
 * "Client profiles" rule 4: a new user can sign up on the way). Attempts are throttled per IP.
 * A valid form is answered with the same page, the same status and no cookie whether or not the
 * address has an account (docs/auth-service.md "Sign-up and reset reveal no accounts"): the account
 * is made, or the owner told of the attempt, after the answer is sent.
 */
import type { Request, Response } from 'express';
import { AccountError, EMAIL_PATTERN, MIN_PASSWORD, checkPassword } from '@svc/accounts';
import { csrfField } from '../http/web-session.ts';
import { html, render, type SafeHtml } from '../ui/html.ts';
import { errorLine, page } from '../ui/layout.ts';
import { safeReturn } from './return-to.ts';
import type { EmailVerification } from './email-verification.ts';
import type { PageDeps } from './sign-in.ts';
import { tooMany } from '../http/too-many.ts';
import type { PageRefusal } from '@svc/errors';

/** A refusal: tied to its field (aria-invalid, aria-describedby, focus), or about the form as a whole. */
type SignUpError = { field: 'email' | 'password' | null; message: string };

/** The sign-up page: `error` ties the last refusal to its field. */
export function signUpPage(csrf: string, returnTo: string, email = '', error?: SignUpError): SafeHtml {
  return page('Create your account', signUpForm(csrf, returnTo, email, error));
}

function signUpForm(csrf: string, returnTo: string, email: string, error: SignUpError | undefined): SafeHtml {
  const on = (field: 'email' | 'password') =>
    error?.field === field
      ? html` aria-invalid="true" aria-describedby="${field}-error" autofocus`
      : field === 'email' && !error
        ? html` autofocus`
        : '';
  const line = (field: 'email' | 'password') =>
    error?.field === field ? html`<p class="error" id="${field}-error" role="alert">${error.message}</p>` : '';
  return html`${error && !error.field ? errorLine(error.message) : ''}<form method="post" action="/signup">${csrfField(csrf)}
<input type="hidden" name="return" value="${returnTo}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" value="${email}" required${on('email')}>${line('email')}
<label for="password">Password (at least ${MIN_PASSWORD} characters; a phrase of a few words works well)</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD}" maxlength="256" required${on('password')}>${line('password')}
<p class="muted">You get a free account and a personal workspace. We email you a link to confirm your address.</p>
<button type="submit">Create account</button></form>
<nav>Already have an account? <a href="/signin?return=${encodeURIComponent(returnTo)}">Sign in</a></nav>`;
}

/** The store's refusal as a sentence tied to the field it is about. */
function refusalOf(err: AccountError): SignUpError {
  const message = `${err.message.charAt(0).toUpperCase()}${err.message.slice(1)}.`;
  return { field: /email address/.test(err.message) ? 'email' : 'password', message };
}

/** The one answer to a valid sign-up form, whoever owns the address. */
export function checkEmailPage(email: string, returnTo: string, emailOn: boolean): SafeHtml {
  const what = emailOn
    ? html`<p role="status">We sent a message to <strong>${email}</strong>: a link to confirm the address of your new account, or, if it already has one, how to sign in.</p>
<p>Once the address is confirmed, sign in to continue.</p>`
    : html`<p role="status">If <strong>${email}</strong> is new to svc, its account is made: sign in to continue.</p>
<p>Email is off on this server: an operator confirms your address (<code>svc-admin user confirm-email</code>) before you can approve a device or app.</p>`;
  return page('Check your email', html`${what}<nav><a href="/signin?return=${encodeURIComponent(returnTo)}">Sign in</a></nav>`);
}

export function signUp(deps: PageDeps & { verification: EmailVerification }) {
  return {
    async get(req: Request, res: Response): Promise<void> {
      render(res, signUpPage(deps.web.csrfToken(req, res), safeReturn(req.query['return'])));
    },
    async post(req: Request, res: Response): Promise<void> {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const returnTo = safeReturn(body['return']);
      const email = typeof body['email'] === 'string' ? body['email'].trim().slice(0, 320) : '';
      const password = typeof body['password'] === 'string' ? body['password'] : '';
      const again = (error: SignUpError, refusal: PageRefusal) =>
        render(res, signUpPage(deps.web.csrfToken(req, res), returnTo, email, error), { refusal });
      if (!deps.web.csrfValid(req)) return void again({ field: null, message: 'The form expired. Try again.' }, 'form_expired');
      const ip = req.ip ?? 'unknown';
      // Every attempt counts, checked and counted in one step (throttle.ts): per source, and per
      // address signed up for from every source (each may send a confirmation mail).
      const wait = await deps.throttle.attempt('signup-ip', ip, deps.limits.signUpPerIp);
      const emailWait = wait > 0 ? 0 : await deps.throttle.attempt('signup-email', email.toLowerCase(), deps.limits.signUpPerEmail);
      if (emailWait > 0) await deps.throttle.refund('signup-ip', ip);
      if (wait > 0 || emailWait > 0)
        return tooMany(res, Math.max(wait, emailWait), { returnTo, csrf: deps.web.csrfToken(req, res), reset: true });
      // Checks that do not depend on whether the address is taken answer at once, tied to their field.
      if (!EMAIL_PATTERN.test(email)) return void again({ field: 'email', message: `"${email}" is not an email address.` }, 'invalid_form');
      try {
        checkPassword(password);
      } catch (err) {
        if (!(err instanceof AccountError)) throw err;
        return void again(refusalOf(err), 'invalid_form');
      }
      render(res, checkEmailPage(email, returnTo, deps.verification.enabled));
      // After the answer: the account and its mail, or a note to the address's owner. A slow mail
      // server or bcrypt never holds the answer, and nothing in it depends on which it was.
      createOrNotify(deps, email, password).catch((err: unknown) => deps.logger.warn('sign-up not completed', { err }));
    },
  };
}

async function createOrNotify(deps: PageDeps & { verification: EmailVerification }, email: string, password: string): Promise<void> {
  const existing = await deps.accounts.users.findByEmail(email);
  if (existing) return deps.verification.sendAlreadyRegistered(existing);
  try {
    const user = await deps.accounts.users.create({ email, password });
    deps.logger.info('user signed up', { userId: user.id, workspace: user.workspace });
    await deps.verification.send(user);
  } catch (err) {
    // Two sign-ups for one address at once: the second finds it taken.
    if (!(err instanceof AccountError && err.code === 'conflict')) throw err;
  }
}
