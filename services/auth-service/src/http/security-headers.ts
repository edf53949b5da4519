/**
 * The security headers of every HTML page of the auth host (docs/auth-service.md "Pages"), ours
 * and oidc-provider's error page alike. The CSP allows the inline stylesheet of the layout and
 * nothing else to load or run; the dashboard narrows it further (dashboard/frame.ts). It names no
 * form-action: the consent and device forms end in a redirect to the client's redirect URI, which
 * browsers check against form-action too.
 */
const PAGE_CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
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
