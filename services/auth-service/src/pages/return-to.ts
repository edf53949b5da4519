/**
 * Where a page may send the browser after sign-in or sign-up: only our own interaction, device,
 * invitation, dashboard and second-factor pages (no open redirect: a path on this host, never `//host` or a scheme).
 */
const ALLOWED =
  /^\/(interaction\/[A-Za-z0-9_-]{1,100}|device(\?code=[A-Za-z0-9-]{1,20})?|invitation\?token=[A-Za-z0-9_-]{1,100}|dashboard(\/[A-Za-z0-9_-]{1,100}){0,6}|factors(\/passkey)?)$/;

export function safeReturn(value: unknown): string {
  return typeof value === 'string' && ALLOWED.test(value) ? value : '/';
}
