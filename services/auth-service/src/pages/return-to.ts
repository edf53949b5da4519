/** Where a page may send the browser after sign-in: only our own interaction and device pages (no open redirect). */
const ALLOWED = /^\/(interaction\/[A-Za-z0-9_-]{1,100}|device(\?code=[A-Za-z0-9-]{1,20})?)$/;

export function safeReturn(value: unknown): string {
  return typeof value === 'string' && ALLOWED.test(value) ? value : '/';
}
