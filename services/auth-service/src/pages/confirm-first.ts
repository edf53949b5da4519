/**
 * The page an account whose address is not confirmed gets instead of an approval (docs/auth-service.md
 * "Proven addresses"): what to do (open the mailed link), a way to have it sent again, and the way
 * back to the waiting approval once it is done.
 */
import { csrfField } from '../http/web-session.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { page } from '../ui/layout.ts';

/** `sent`: true when a new link just left, false when asked for and not sent (too many lately), absent otherwise. */
export function confirmFirstPage(v: { uid: string; csrf: string; email: string; emailOn: boolean; sent?: boolean | undefined }): SafeHtml {
  const how = v.emailOn
    ? html`<p>Before you approve access, confirm that <strong>${v.email}</strong> is your address: open the link we mailed to it, then continue here.</p>
${
  v.sent === true
    ? html`<p role="status">We sent a new link. It works for 24 hours.</p>`
    : v.sent === false
      ? html`<p class="error" role="alert">Several links were sent lately, so no new one was sent: use the latest, or try again in an hour.</p>`
      : ''
}
<form method="get" action="/interaction/${v.uid}"><button type="submit">I confirmed it: continue</button></form>
<form method="post" action="/interaction/${v.uid}/confirm-email">${csrfField(v.csrf)}<button type="submit" class="secondary">Send the link again</button></form>`
    : html`<p>Before you approve access, <strong>${v.email}</strong> must be confirmed as your address. Email is off on this server, so an operator confirms it with <code>svc-admin user confirm-email</code>; then continue here.</p>
<form method="get" action="/interaction/${v.uid}"><button type="submit">Continue</button></form>`;
  return page('Confirm your email address first', html`${how}<p class="muted">Not you? <a href="/signout">Sign out</a></p>`);
}
