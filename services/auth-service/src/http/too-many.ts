/**
 * The answer of every page throttle (docs/auth-service.md "Sign-in protections"): 429 with
 * Retry-After and a page that is never a dead end. It says how long to wait, offers the password
 * reset (which also ends an account's backoff), and, inside an OAuth authorization, the way back
 * to the app (the interaction's abort, which returns `access_denied` to the client); inside the
 * device flow, the code entry page.
 */
import type { Response } from 'express';
import { csrfField } from './web-session.ts';
import { html, render } from '../ui/html.ts';
import { page } from '../ui/layout.ts';

/** "12 seconds", "1 minute", "15 minutes". */
function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/** The way forward: the form's `returnTo` (safeReturn'ed) with the CSRF token of the abort form, and the reset link. */
export interface WayOn {
  returnTo?: string;
  csrf?: string;
  /** Offer the password reset (the throttles of the account's forms). */
  reset: boolean;
}

export function tooMany(res: Response, seconds: number, way: WayOn): void {
  const uid = /^\/interaction\/([A-Za-z0-9_-]+)$/.exec(way.returnTo ?? '')?.[1];
  const back = uid
    ? html`<form method="post" action="/interaction/${uid}/abort">${csrfField(way.csrf ?? '')}<button type="submit">Cancel and return to the app</button></form>`
    : way.returnTo?.startsWith('/device') && html`<p><a href="/device">Back to the device code page</a></p>`;
  const reset = way.reset && html`<p>Forgot your password? <a href="/forgot">Reset it by email</a>; a new password also ends the wait.</p>`;
  const body = html`<p class="error" role="alert">Too many attempts. Try again in ${duration(seconds)}.</p>
${reset}${back}`;
  render(res, page('Too many attempts', body), { refusal: 'too_many', headers: { 'Retry-After': String(seconds) } });
}
