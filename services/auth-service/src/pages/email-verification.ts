/**
 * Email verification (docs/auth-service.md "Email verification"):
 * - At sign-up, and again from the account page, a link is mailed; Redis keeps only the SHA-256
 *   of its 32 random bytes, for 24 hours.
 * - GET /verify-email shows a button and changes nothing (mail scanners open links); the POST
 *   takes the token with GETDEL, so it works once, and marks the address verified.
 * - A password reset proves the same thing, so it marks the address verified too.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Redis, User } from '@svc/accounts';
import type { Mailer } from '@svc/mail';
import { csrfField } from '../http/web-session.ts';
import { OK } from '../store/redis-keys.ts';
import { html, render, type SafeHtml } from '../ui/html.ts';
import { page } from '../ui/layout.ts';
import type { PageDeps } from './sign-in.ts';

const TOKEN_TTL_SECONDS = 86_400;
/**
 * Confirmation mails one account may cause (sign-up, account page, "send the link again"): anyone
 * can sign up with someone else's address, so this bounds the mail svc sends to that address, and
 * the "already has an account" note to an existing one likewise (docs/auth-service.md "Email verification").
 */
export const VERIFICATION_MAILS = { limit: 5, windowSeconds: 3600 } as const;
const digest = (token: string) => createHash('sha256').update(token).digest('hex');

export interface EmailVerification {
  /** False with EMAIL=off: no link can be sent, and the pages say so. */
  readonly enabled: boolean;
  /**
   * Mails a new link to the person: false when nothing was sent (email off, the address already
   * confirmed, or VERIFICATION_MAILS reached).
   */
  send(user: User): Promise<boolean>;
  /** Tells the owner of an address that someone tried to sign up with it (sign-up answers the same either way). */
  sendAlreadyRegistered(user: User): Promise<void>;
  page(req: Request, res: Response): Promise<void>;
  confirm(req: Request, res: Response): Promise<void>;
}

/** GET /verify-email: a button that posts the link's token (opening the link changes nothing). */
export function confirmEmailPage(csrf: string, token: string): SafeHtml {
  return page(
    'Confirm your email address',
    html`<form method="post" action="/verify-email">${csrfField(csrf)}<input type="hidden" name="token" value="${token}">
<p>Confirm that this address is yours.</p><button type="submit">Confirm my email address</button></form>`,
  );
}

/** After the link was used: the address confirmed. */
export function emailConfirmedPage(email: string): SafeHtml {
  return page(
    'Email address confirmed',
    html`<p role="status">Thank you: <strong>${email}</strong> is confirmed.</p><nav><a href="/dashboard">Open the dashboard</a></nav>`,
  );
}

export function emailVerification(deps: PageDeps & { redis: Redis; mailer: Mailer; authUrl: string }): EmailVerification {
  const expired = () =>
    page(
      'Link expired',
      html`<p class="error" role="alert">This link has expired or was already used.</p><nav><a href="/dashboard/account">Send a new one from your account page</a></nav>`,
    );
  const tokenOf = (v: unknown) => (typeof v === 'string' ? v.slice(0, 100) : '');

  return {
    enabled: deps.mailer.enabled,
    async send(user) {
      if (!deps.mailer.enabled || user.emailVerifiedAt) return false;
      if ((await deps.throttle.attempt('verify-mail', user.id, VERIFICATION_MAILS)) > 0) return false;
      const token = randomBytes(32).toString('base64url');
      await deps.redis.set(OK.emailVerify(digest(token)), user.id, 'EX', TOKEN_TTL_SECONDS);
      await deps.mailer.send({
        to: user.email,
        subject: 'Confirm your email address for svc',
        text: `Welcome to svc. Confirm that ${user.email} is your address (the link works once, for 24 hours):\n${deps.authUrl}/verify-email?token=${token}\n\nIf you did not create an svc account, ignore this message.\n`,
      });
      return true;
    },

    async sendAlreadyRegistered(user) {
      if (!deps.mailer.enabled) return;
      if ((await deps.throttle.attempt('verify-mail', user.id, VERIFICATION_MAILS)) > 0) return;
      await deps.mailer.send({
        to: user.email,
        subject: 'Your svc account already exists',
        text: `Someone (probably you) tried to create an svc account for ${user.email}, which already has one.\n\nSign in at ${deps.authUrl}/signin, or choose a new password at ${deps.authUrl}/forgot.\n\nIf it was not you, ignore this message: nothing was changed.\n`,
      });
    },

    async page(req, res) {
      const token = tokenOf(req.query['token']);
      if (!token || !(await deps.redis.exists(OK.emailVerify(digest(token)))))
        return void render(res, expired(), { refusal: 'link_expired' });
      render(res, confirmEmailPage(deps.web.csrfToken(req, res), token));
    },

    async confirm(req, res) {
      const token = tokenOf((req.body as Record<string, unknown> | undefined)?.['token']);
      if (!deps.web.csrfValid(req))
        return void render(
          res,
          page('Confirm your email address', html`<p class="error" role="alert">The form expired. Open the link from the email again.</p>`),
          { refusal: 'form_expired' },
        );
      const userId = token ? await deps.redis.getdel(OK.emailVerify(digest(token))) : null;
      const user = userId ? await deps.accounts.users.get(userId) : null;
      if (!user) return void render(res, expired(), { refusal: 'link_expired' });
      await deps.accounts.users.markEmailVerified(user.id);
      await deps.accounts.audit.recordOwn(user, 'email.verified', { source: req.ip ?? '' });
      deps.logger.info('email verified', { user: user.id });
      render(res, emailConfirmedPage(user.email));
    },
  };
}
