/**
 * The security headers of every HTML page of the auth host (docs/auth-service.md "Pages"), ours
 * and oidc-provider's error page alike. The CSP allows the inline stylesheet of the layout and
 * scripts from the auth host itself (the passkey script, /assets/passkey.js), nothing inline; the dashboard narrows it further (dashboard/frame.ts). It names no
 * form-action: the consent and device forms end in a redirect to the client's redirect URI, which
 * browsers check against form-action too.
 */
const PAGE_CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  "script-src 'self'",
  "img-src 'self' data:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': PAGE_CSP,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};
