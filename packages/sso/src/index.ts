/**
 * Single sign-on's settings per workspace (docs/auth-service.md "Single sign-on"): what the
 * auth-service's pages, the gateway's REST API and svc-admin share. The sign-in flow itself (the
 * provider client, openid-client, the outbound fetch) stays in the auth-service.
 */
export * from './bounds.ts';
export { SsoError } from './errors.ts';
export { defaultResolveTxt, domainProven, normalDomain, proofName, proofValue, type ResolveTxt } from './domain-proof.ts';
export { SK } from './keys.ts';
export {
  ssoSettings,
  type PolicyInput,
  type ProviderInput,
  type SettingsActor,
  type SsoSettingsService,
  type SsoView,
} from './settings.ts';
export { createSsoStore, type DomainClaim, type SsoSettings, type SsoStore } from './store.ts';
export * from './scim-bounds.ts';
export { createScimTokens, type ScimTokenInfo, type ScimTokens } from './scim-tokens.ts';
export { createScimDirectory, type ScimDirectory, type ScimGroup, type ScimUser } from './scim-directory.ts';
export { createLogoutStore, LOGOUT_TOKEN_MAX_AGE_SECONDS, providerSession, type LogoutStore } from './logout-store.ts';
export { certificateSummary, samlServiceProvider, type SamlIdp, type SamlServiceProvider } from './saml-idp.ts';
export { createSamlStore, type SamlIdentity, type SamlStore } from './saml-store.ts';
