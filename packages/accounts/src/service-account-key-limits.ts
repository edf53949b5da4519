/**
 * The bounds of a service account's OAuth client keys, apart from the store so that the
 * management contract (and through it the CLI) can state them in its schemas without loading Redis.
 */

/** Bounds of a service account's keys (docs/auth-service.md "Client credentials"). */
export const SERVICE_ACCOUNT_KEY_LIMITS = {
  /** Public keys in one inline JWKS (room for a rotation: old and new side by side). */
  maxKeys: 5,
  /** The inline JWKS, as JSON. */
  maxJwksBytes: 8 * 1024,
  /** A JWKS URL. */
  maxJwksUriLength: 2048,
  /** A key id (`kid`). */
  maxKidLength: 128,
} as const;
