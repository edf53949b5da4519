/**
 * A refused SSO step: the HTTP status and the sentence the person (or the owner) reads; `detail`
 * is what the log gets (docs/conventions.md: the public message is apart from the internal detail).
 */
export class SsoError extends Error {
  override name = 'SsoError';
  readonly status: 400 | 403 | 404 | 409 | 502;
  readonly detail: string;

  constructor(status: SsoError['status'], message: string, detail = '') {
    super(message);
    this.status = status;
    this.detail = detail;
  }
}
