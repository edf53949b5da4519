/** An OAuth error response (RFC 6749 §5.2) from one of our own pre-steps, shaped as oidc-provider's. */
import type { Response } from 'express';

export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'slow_down' | 'invalid_client_metadata' | 'invalid_redirect_uri';

const STATUS = {
  invalid_request: 400,
  invalid_client: 401,
  slow_down: 400,
  invalid_client_metadata: 400,
  invalid_redirect_uri: 400,
} as const satisfies Record<OAuthErrorCode, number>;

export function sendOAuthError(res: Response, error: OAuthErrorCode, description: string, extra: Record<string, unknown> = {}): void {
  res
    .status(STATUS[error])
    .set('Cache-Control', 'no-store')
    .json({ error, error_description: description, ...extra });
}
