/**
 * GET/POST /signup: a free account with its personal workspace (docs/contract.md "Accounts";
 * "Client profiles" rule 4: a new user can sign up on the way). Attempts are throttled per IP.
 */
import type { Request, Response } from 'express';
import { AccountError, MIN_PASSWORD } from '@svc/accounts';
import { csrfField } from '../http/web-session.ts';
import { errorLine, esc, page } from './layout.ts';
import { safeReturn } from './return-to.ts';
import type { EmailVerification } from './email-verification.ts';
import type { PageDeps } from './sign-in.ts';
import { tooMany } from './too-many.ts';

/** A refusal: tied to its field (aria-invalid, aria-describedby, focus), or about the form as a whole. */
type SignUpError = { field: 'email' | 'password' | null; message: string };

function signUpForm(csrf: string, returnTo: string, email = '', error?: SignUpError): string {
  const on = (field: 'email' | 'password') =>
    error?.field === field
      ? ` aria-invalid="true" aria-describedby="${field}-error" autofocus`
      : field === 'email' && !error
        ? ' autofocus'
        : '';
  const line = (field: 'email' | 'password') =>
    error?.field === field ? `<p class="error" id="${field}-error" role="alert">${esc(error.message)}</p>` : '';
  return `${error && !error.field ? errorLine(error.message) : ''}<form method="post" action="/signup">${csrfField(csrf)}
<input type="hidden" name="return" value="${esc(returnTo)}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" value="${esc(email)}" required${on('email')}>${line('email')}
<label for="password">Password (at least ${MIN_PASSWORD} characters; a phrase of a few words works well)</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD}" maxlength="256" required${on('password')}>${line('password')}
<p class="muted">You get a free account and a personal workspace. We email you a link to confirm your address.</p>
<button type="submit">Create account</button></form>
<nav>Already have an account? <a href="/signin?return=${encodeURIComponent(returnTo)}">Sign in</a></nav>`;
}

/** The store's refusal as a sentence tied to the field it is about. */
function refusalOf(err: AccountError): SignUpError {
  if (err.code === 'conflict') return { field: 'email', message: 'An account with this email already exists. Sign in instead.' };
  const message = `${err.message.charAt(0).toUpperCase()}${err.message.slice(1)}.`;
  return { field: /email address/.test(err.message) ? 'email' : 'password', message };
}

export function signUp(deps: PageDeps & { verification: EmailVerification }) {
  return {
    async get(req: Request, res: Response): Promise<void> {
      res.type('html').send(page('Create your account', signUpForm(deps.web.csrfToken(req, res), safeReturn(req.query['return']))));
    },
    async post(req: Request, res: Response): Promise<void> {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const returnTo = safeReturn(body['return']);
      const email = typeof body['email'] === 'string' ? body['email'].trim().slice(0, 320) : '';
      const password = typeof body['password'] === 'string' ? body['password'] : '';
      const again = (error: SignUpError, status: number) =>
        res
          .status(status)
          .type('html')
          .send(page('Create your account', signUpForm(deps.web.csrfToken(req, res), returnTo, email, error)));
      if (!deps.web.csrfValid(req)) return void again({ field: null, message: 'The form expired. Try again.' }, 403);
      const ip = req.ip ?? 'unknown';
      // Every attempt counts, checked and counted in one step (throttle.ts): per source, and per
      // address signed up for from every source (each may send a confirmation mail).
      const wait = await deps.throttle.attempt('signup-ip', ip, deps.limits.signUpPerIp);
      const emailWait = wait > 0 ? 0 : await deps.throttle.attempt('signup-email', email.toLowerCase(), deps.limits.signUpPerEmail);
      if (emailWait > 0) await deps.throttle.refund('signup-ip', ip);
      if (wait > 0 || emailWait > 0)
        return tooMany(res, Math.max(wait, emailWait), { returnTo, csrf: deps.web.csrfToken(req, res), reset: true });
      try {
        const user = await deps.accounts.users.create({ email, password });
        deps.logger.info('user signed up', { userId: user.id, workspace: user.workspace });
        // The confirmation mail goes in the background: a slow mail server never holds the sign-up.
        deps.verification.send(user).catch((err: unknown) => deps.logger.warn('verification email not sent', { err }));
        await deps.web.start(req, res, user.id);
        res.redirect(303, returnTo);
      } catch (err) {
        if (!(err instanceof AccountError)) throw err;
        again(refusalOf(err), 400);
      }
    },
  };
}
