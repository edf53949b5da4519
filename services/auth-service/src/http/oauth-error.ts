/**
 * An OAuth error response (RFC 6749 §5.2) from one of our own steps, shaped as oidc-provider's;
 * the refusal's name decides the `error` and the status (@svc/errors, docs/errors.md "Three
 * families, one table").
 */
import type { Response } from 'express';
import { oauthAnswer, type OAuthRefusal } from '@svc/errors';

/** The status and body of a refusal, for an Express response or a Koa context alike. */
export function oauthError(
  refusal: OAuthRefusal,
  description: string,
  extra: Record<string, unknown> = {},
): { status: number; body: Record<string, unknown> } {
  const { error, status } = oauthAnswer(refusal);
  return { status, body: { error, error_description: description, ...extra } };
}

export function sendOAuthError(res: Response, refusal: OAuthRefusal, description: string, extra: Record<string, unknown> = {}): void {
  const { status, body } = oauthError(refusal, description, extra);
  res.status(status).set('Cache-Control', 'no-store').json(body);
}
