/**
 * A refused SSO step: the HTTP status and the sentence the person (or the owner) reads; `detail`
 * is what the log gets (docs/conventions.md: the public message is apart from the internal detail).
 */
export class SsoError extends Error {
  override name = 'SsoError';
  readonly status: 400 | 403 | 404 | 409 | 413 | 429 | 502;
  readonly detail: string;
  /** The input field a 400 is about, when it is one (the REST API's `error.field`). */
  readonly field: string | undefined;

  constructor(status: SsoError['status'], message: string, detail = '', field?: string) {
    super(message);
    this.status = status;
    this.detail = detail;
    this.field = field;
  }
}
