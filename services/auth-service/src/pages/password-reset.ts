/**
 * Password reset by email (docs/auth-service.md "Password reset"):
 * - GET/POST /forgot: an email address in, always the same answer out ("if an account exists, a
 *   link was sent"), so the form reveals no accounts; throttled per source like sign-in.
 * - The link carries 32 random bytes; Redis keeps only their SHA-256, for 30 minutes.
 * - GET/POST /reset: the new password (the policy of @svc/accounts), checked before the token is
 *   taken; the token is taken with GETDEL, so it works once however many forms race.
 * - A link names the password epoch it was made in: any new password (this reset, another link,
 *   the account page) ends every link made before it.
 * - The answer to /forgot is sent before the address is even looked up, so it takes the same time
 *   whether or not the address has an account (docs/auth-service.md "Sign-up and reset reveal no accounts").
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { AccountError, MIN_PASSWORD, checkPassword, endPersonalCredentials, type Redis, type User } from '@svc/accounts';
import type { Mailer } from '@svc/mail';
import { csrfField } from '../http/web-session.ts';
import { OK } from '../store/redis-keys.ts';
import { html, render, type SafeHtml } from '../ui/html.ts';
import { errorLine, page } from '../ui/layout.ts';
import type { PageDeps } from './sign-in.ts';
import { tooMany } from '../http/too-many.ts';

const TOKEN_TTL_SECONDS = 1800;
const digest = (token: string) => createHash('sha256').update(token).digest('hex');

/** A link's stored value: the person and the password epoch the link was made in. */
const linkValue = (user: User) => `${user.id} ${user.passwordEpoch}`;

/** The form asking for the account's address. */
export const forgotPage = (csrf: string, error?: string): SafeHtml =>
  page(
    'Reset your password',
    html`${errorLine(error)}<p>Enter the email address of your account. We send a link to choose a new password; it works for 30 minutes.</p>
<form method="post" action="/forgot">${csrfField(csrf)}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required autofocus${error ? html` aria-invalid="true"` : ''}>
<button type="submit">Send the link</button></form><nav><a href="/signin">Back to sign in</a></nav>`,
  );

/** The form for the new password, carrying the link's token. */
export const newPasswordPage = (csrf: string, token: string, error?: string): SafeHtml =>
  page(
    'Choose a new password',
    html`<form method="post" action="/reset">${csrfField(csrf)}<input type="hidden" name="token" value="${token}">
<label for="password">New password (at least ${MIN_PASSWORD} characters; a phrase of a few words works well)</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD}" maxlength="256" required autofocus${
      error ? html` aria-invalid="true" aria-describedby="password-error"` : ''
    }>${error ? html`<p class="error" id="password-error" role="alert">${error}</p>` : ''}
<button type="submit">Set the new password</button></form>`,
  );

/** The one answer to the address form, whether or not the address has an account. */
export const linkSentPage = (email: string): SafeHtml =>
  page(
    'Check your email',
    html`<p role="status">If an account exists for <strong>${email}</strong>, we sent it a link to choose a new password. It works for 30 minutes.</p><nav><a href="/signin">Back to sign in</a></nav>`,
  );

export function passwordReset(deps: PageDeps & { redis: Redis; mailer: Mailer; authUrl: string }) {
  const off = () =>
    page(
      'Reset your password',
      html`<p>Password reset by email is off on this server (EMAIL=off). An operator can set a new password with <code>svc-admin user set-password</code>.</p><nav><a href="/signin">Back to sign in</a></nav>`,
    );

  const expired = () =>
    page(
      'Link expired',
      html`<p class="error" role="alert">This link has expired or was already used.</p><nav><a href="/forgot">Send a new link</a></nav>`,
    );

  async function sendLinkTo(email: string): Promise<void> {
    const user = email ? await deps.accounts.users.findByEmail(email) : null;
    if (!user) return;
    const token = randomBytes(32).toString('base64url');
    await deps.redis.set(OK.passwordReset(digest(token)), linkValue(user), 'EX', TOKEN_TTL_SECONDS);
    await deps.mailer.send({
      to: user.email,
      subject: 'Choose a new svc password',
      text: `Someone (probably you) asked to reset the password of your svc account ${user.email}.\n\nChoose a new password here (the link works once, for 30 minutes):\n${deps.authUrl}/reset?token=${token}\n\nIf it was not you, ignore this message: your password stays as it is.\n`,
    });
  }

  /** The person a link's stored value names, while its epoch is current; null otherwise. */
  async function personOf(value: string | null): Promise<User | null> {
    const [userId = '', epoch = ''] = (value ?? '').split(' ');
    const user = userId ? await deps.accounts.users.get(userId) : null;
    return user && String(user.passwordEpoch) === epoch ? user : null;
  }

  return {
    async forgot(req: Request, res: Response): Promise<void> {
      if (!deps.mailer.enabled) return void render(res, off());
      render(res, forgotPage(deps.web.csrfToken(req, res)));
    },

    async sendLink(req: Request, res: Response): Promise<void> {
      if (!deps.mailer.enabled) return void render(res, off());
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (!deps.web.csrfValid(req))
        return void render(res, forgotPage(deps.web.csrfToken(req, res), 'The form expired. Try again.'), { refusal: 'form_expired' });
      const email = typeof body['email'] === 'string' ? body['email'].trim().toLowerCase().slice(0, 320) : '';
      // Per source, and per address asked for from every source (each sends a mail).
      const ip = req.ip ?? 'unknown';
      const wait = await deps.throttle.attempt('reset-ip', ip, deps.limits.resetPerIp);
      const emailWait = wait > 0 || !email ? 0 : await deps.throttle.attempt('reset-email', email, deps.limits.resetPerEmail);
      if (emailWait > 0) await deps.throttle.refund('reset-ip', ip);
      if (wait > 0 || emailWait > 0) return tooMany(res, Math.max(wait, emailWait), { reset: false });
      // After the answer: whether a link is made and mailed shows neither in the page nor in its time.
      res.on('finish', () => void sendLinkTo(email).catch((err: unknown) => deps.logger.warn('reset link not sent', { err })));
      render(res, linkSentPage(email));
    },

    async resetPage(req: Request, res: Response): Promise<void> {
      const token = typeof req.query['token'] === 'string' ? req.query['token'].slice(0, 100) : '';
      const user = token ? await personOf(await deps.redis.get(OK.passwordReset(digest(token)))) : null;
      if (!user) return void render(res, expired(), { refusal: 'link_expired' });
      render(res, newPasswordPage(deps.web.csrfToken(req, res), token));
    },

    async reset(req: Request, res: Response): Promise<void> {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const token = typeof body['token'] === 'string' ? body['token'].slice(0, 100) : '';
      const password = typeof body['password'] === 'string' ? body['password'] : '';
      if (!deps.web.csrfValid(req))
        return void render(res, newPasswordPage(deps.web.csrfToken(req, res), token, 'The form expired. Try again.'), {
          refusal: 'form_expired',
        });
      try {
        checkPassword(password);
      } catch (err) {
        if (!(err instanceof AccountError)) throw err;
        const message = `${err.message.charAt(0).toUpperCase()}${err.message.slice(1)}.`;
        return void render(res, newPasswordPage(deps.web.csrfToken(req, res), token, message), { refusal: 'invalid_form' });
      }
      const user = token ? await personOf(await deps.redis.getdel(OK.passwordReset(digest(token)))) : null;
      if (!user) return void render(res, expired(), { refusal: 'link_expired' });
      // The new epoch ends every other link (docs/auth-service.md "What a new password ends").
      await deps.accounts.users.setPassword(user.id, password);
      // The link proved the address: the account's sign-in backoff ends with the new password.
      await deps.throttle.reset('signin-backoff', user.email);
      // Whoever knew the old password is signed out everywhere, and what they could have obtained
      // with it ends: personal keys and apps' grants. The link proved the address.
      const ended = await deps.web.endOthers(null, user.id);
      const credentials = await endPersonalCredentials(deps.accounts, user.id);
      await deps.accounts.users.markEmailVerified(user.id);
      await deps.accounts.audit.recordOwn(
        user,
        'password.changed',
        { source: req.ip ?? '' },
        {
          by: 'reset link',
          sessions_ended: String(ended),
          personal_keys_revoked: String(credentials.keys),
          oauth_apps_revoked: String(credentials.apps),
        },
      );
      deps.logger.info('password reset', { user: user.id, sessionsEnded: ended, ...credentials });
      render(
        res,
        page(
          'Password changed',
          html`<p role="status">Your new password is set. Every browser signed in to your account was signed out, and your personal keys and the apps you authorized were revoked: sign in again where you need them.</p><nav><a href="/signin">Sign in</a></nav>`,
        ),
      );
    },
  };
}
