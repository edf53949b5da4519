/**
 * The resource of a refresh, checked before the refresh token rotates (docs/security.md "Refresh
 * tokens"). oidc-provider consumes a public client's refresh token first and resolves the
 * requested resource after, so a refresh refused `invalid_target` (RFC 8707 §2.2: a resource the
 * grant does not cover) used up a token whose successor was never sent, and the client's next,
 * correct refresh presented a consumed token: reuse, and the grant was revoked. Run from the
 * provider's `rotateRefreshToken` hook, which it calls once the token, client and grant are
 * checked and before anything is consumed, this refuses the same requests with the same error
 * while the token is still unused.
 */
import { errors, type KoaContextWithOIDC } from 'oidc-provider';

/** Throws `invalid_target` when the refresh names a resource its token was not granted for, or several. */
export function checkRefreshResource(ctx: KoaContextWithOIDC): void {
  const requested = (ctx.oidc.params as { resource?: unknown } | undefined)?.resource;
  if (requested === undefined || requested === '') return;
  // RFC 8707 §2.2: one resource per access token request (the provider says the same, later).
  if (Array.isArray(requested)) {
    throw new errors.InvalidTarget('only a single resource indicator value must be requested/resolved during Access Token Request');
  }
  const token = ctx.oidc.entities.RefreshToken;
  if (token && !token.resourceIndicators.has(String(requested))) throw new errors.InvalidTarget();
}
