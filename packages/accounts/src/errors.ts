/** Failures of the account model that callers turn into their own messages (CLI, pages, tools). */
/**
 * `limit`: a collection is full (docs/management.md "Collection limits"); `cooldown`: asked again
 * too soon after a denial (docs/management.md "Access request lifecycle").
 */
export type AccountErrorCode = 'conflict' | 'not_found' | 'invalid' | 'limit' | 'cooldown';

export class AccountError extends Error {
  override name = 'AccountError';
  readonly code: AccountErrorCode;
  constructor(code: AccountErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{1,62}$/;
export const EMAIL_PATTERN = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

export function assertSlug(kind: string, slug: string): void {
  if (!SLUG_PATTERN.test(slug)) {
    throw new AccountError('invalid', `${kind} slug "${slug}" must be 2-63 characters of a-z, 0-9 and -, starting with a letter or digit`);
  }
}
