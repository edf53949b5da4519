/**
 * The bounds of a workspace's workload issuers (docs/workload-identity.md), apart from the store so
 * that the management contract can state them.
 */

export const WORKLOAD_ISSUER_LIMITS = {
  /** Workload issuers in one workspace. */
  maxIssuers: 10,
  /** Rules of one issuer. */
  maxRules: 20,
  /** Claims one rule names. */
  maxClaims: 8,
  /** An issuer identifier (an https URL) or a SPIFFE trust domain (`spiffe://example.org`). */
  maxIssuerLength: 2048,
  /** One claim's pattern. */
  maxPatternLength: 256,
} as const;
