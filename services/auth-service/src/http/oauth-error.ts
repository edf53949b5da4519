/** An OAuth error response (RFC 6749 §5.2) from one of our own pre-steps, shaped as oidc-provider's. */
import type { Response } from 'express';

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'slow_down'
  | 'invalid_client_metadata'
  | 'invalid_redirect_uri'
  | 'temporarily_unavailable';

const STATUS = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  slow_down: 400,
  invalid_client_metadata: 400,
  invalid_redirect_uri: 400,
  temporarily_unavailable: 503,
} as const satisfies Record<OAuthErrorCode, number>;

/** `status` overrides the code's usual one (429 for a throttled temporarily_unavailable). */
export function sendOAuthError(
  res: Response,
  error: OAuthErrorCode,
  description: string,
  extra: Record<string, unknown> = {},
  status: number = STATUS[error],
): void {
  res
    .status(status)
    .set('Cache-Control', 'no-store')
    .json({ error, error_description: description, ...extra });
}
