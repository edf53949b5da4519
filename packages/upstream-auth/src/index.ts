/**
 * @svc/upstream-auth: what an MCP server behind svc uses to verify the short-lived token svc sends it
 * in place of the caller's credential (docs/upstream-servers.md): `createSvcTokenVerifier()`, an MCP
 * SDK `OAuthTokenVerifier`, and `hasLevel()` for per-tool checks. jose is its only dependency.
 */
export { createSvcTokenVerifier, type SvcTokenVerifier, type SvcTokenVerifierOptions } from './verifier.ts';
export { hasLevel, MAX_TOKEN_LIFETIME_SECONDS, type SvcAuthInfo, type SvcLevel, type SvcTokenExtra } from './profile.ts';
export { SvcTokenError, SvcVerifierError, type RefusalReason, type VerifierFailure } from './errors.ts';
