/**
 * GET/POST /signout: ends our session and the provider's browser session (its `_session`
 * cookies), so the next approval asks who is there. POST only, with CSRF: a link cannot sign
 * anyone out.
 */
import type { Request, Response } from 'express';
import type { Redis } from '@svc/accounts';
import { csrfField, readCookie } from '../http/web-session.ts';
import { OK } from '../store/redis-keys.ts';
import { html, render } from '../ui/html.ts';
import { page } from '../ui/layout.ts';
import type { PageDeps } from './sign-in.ts';

const PROVIDER_COOKIES = ['_session', '_session.sig', '_session.legacy', '_session.legacy.sig'];

export interface SignOutDeps extends PageDeps {
  redis: Redis;
  /** The workspace provider's sign-out, for a session single sign-on started (sso/provider-sign-out.ts). */
  providerSignOutUrl?: (workspace: string) => Promise<{ url: string; issuer: string } | null>;
}

export function signOut(deps: SignOutDeps) {
  return {
    async get(req: Request, res: Response): Promise<void> {
      const csrf = deps.web.csrfToken(req, res);
      render(
        res,
        page('Sign out', html`<form method="post" action="/signout">${csrfField(csrf)}<button type="submit">Sign out</button></form>`),
      );
    },
    async post(req: Request, res: Response): Promise<void> {
      if (!deps.web.csrfValid(req)) {
        render(res, page('Sign out', html`<p class="error" role="alert">The form expired. <a href="/signout">Try again</a>.</p>`), {
          refusal: 'form_expired',
        });
        return;
      }
      const ended = await deps.web.end(req, res);
      const providerSession = readCookie(req, '_session');
      if (providerSession && providerSession.length < 200) await deps.redis.del(OK.model('Session', providerSession));
      for (const name of PROVIDER_COOKIES) res.clearCookie(name, { path: '/' });
      // A session the company's provider started: offer to sign out there too (OpenID Connect RP-Initiated Logout 1.0).
      const ssoWorkspace = ended?.['ssoWorkspace'];
      const there = ssoWorkspace && deps.providerSignOutUrl ? await deps.providerSignOutUrl(ssoWorkspace) : null;
      render(
        res,
        page(
          'Signed out',
          html`<p role="status">You are signed out of svc.</p>${
            there &&
            html`<p>You signed in through your company's sign-in (${new URL(there.issuer).host}), which may still remember you.</p><p><a href="${there.url}">Sign out of your company's sign-in too</a></p>`
          }<nav><a href="/signin">Sign in again</a></nav>`,
        ),
      );
    },
  };
}
