/**
 * The bounds of a workspace's trusted identity providers (docs/auth-service.md "Enterprise-managed
 * authorization"), apart from the store so that the management contract can state them.
 */

export const TRUSTED_ISSUER_LIMITS = {
  /** Trusted identity providers in one workspace. */
  maxIssuers: 5,
  /** An issuer identifier (an https URL, RFC 8414 §2). */
  maxIssuerLength: 2048,
} as const;
