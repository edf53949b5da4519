/**
 * Errors at the authorization endpoint for clients svc does not vouch for stay on svc's own page
 * (RFC 9700 §4.11.2: an authorization server should not redirect the browser to a client it
 * cannot verify without the person's involvement). Anyone can register a client, or name one by
 * a metadata URL, with any https redirect URI; were its errors redirected, svc's authorize URL
 * would be an open redirector to that URI (bad scope, unknown resource, missing PKCE ...), before
 * the person has seen a single svc page.
 *
 * oidc-provider's authorization error handler (lib/shared/authorization_error_handler.js) emits
 * `authorization.error` (or `server_error`) with the error before deciding between rendering and
 * redirecting, and renders whenever `allow_redirect` is false. So on the first authorize request
 * (route `authorization`) of an unverified client the error is marked not to be redirected. Errors
 * after the person has seen svc (route `resume`: a denial, "No access") still go back to the client,
 * where the person expects to return. First-party clients (clients.ts) are verified; they use the
 * device flow and have no redirect URIs.
 */
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { isVerifiedClient } from './client-names.ts';

export function keepUnverifiedClientErrorsOnSvc(provider: Provider): void {
  const mark = (ctx: KoaContextWithOIDC, err: unknown) => {
    const clientId = ctx.oidc?.client?.clientId;
    if (ctx.oidc?.route !== 'authorization' || (clientId !== undefined && isVerifiedClient(clientId))) return;
    if (err && typeof err === 'object') (err as { allow_redirect?: boolean }).allow_redirect = false;
  };
  provider.on('authorization.error', mark);
  provider.on('server_error', mark);
}
