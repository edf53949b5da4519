/**
 * What the verifier throws. A token it refuses is an `SvcTokenError` (OAuth `invalid_token`, HTTP 401,
 * RFC 6750 §3.1); a verifier that cannot decide (the key set unreachable, the replay cache full) throws
 * an `SvcVerifierError`, which a bearer-auth layer answers 500, so a caller never takes an outage of
 * the verifier for a bad token (docs/upstream-servers.md "Verify the token").
 */

/** Why a token was refused: which check of the profile it failed (docs/upstream-servers.md "The forwarded token"). */
export type RefusalReason =
  | 'malformed'
  | 'type'
  | 'algorithm'
  | 'unknown_key'
  | 'signature'
  | 'issuer'
  | 'audience'
  | 'expired'
  | 'not_yet_valid'
  | 'lifetime'
  | 'claims'
  | 'replayed';

/** The public message of each refusal: it names the failed check and never echoes the token. */
const REFUSAL_MESSAGES = {
  malformed: 'The token is not a well-formed JWT',
  type: 'The token is not an RFC 9068 access token (typ at+jwt)',
  algorithm: 'The token is not signed with ES256',
  unknown_key: 'The token is signed with a key the issuer does not publish',
  signature: 'The token signature is invalid',
  issuer: 'The token was issued by another issuer',
  audience: 'The token was issued for another server',
  expired: 'The token has expired',
  not_yet_valid: 'The token is not valid yet',
  lifetime: 'The token lives longer than this server accepts',
  claims: 'The token claims do not follow the svc token profile',
  replayed: 'The token was already used',
} as const satisfies Record<RefusalReason, string>;

/**
 * A refused token. `name` and `errorCode` are those of the MCP SDK's `InvalidTokenError`, so code that
 * looks at them treats it as one; the SDK's own middleware checks `instanceof`, hence the
 * `invalidTokenError` option of createSvcTokenVerifier().
 */
export class SvcTokenError extends Error {
  override readonly name = 'InvalidTokenError';
  readonly errorCode = 'invalid_token';
  readonly reason: RefusalReason;

  constructor(reason: RefusalReason, options?: { cause?: unknown }) {
    super(REFUSAL_MESSAGES[reason], options);
    this.reason = reason;
  }

  /** The OAuth error body (RFC 6750 §3). */
  toResponseObject(): { error: 'invalid_token'; error_description: string } {
    return { error: this.errorCode, error_description: this.message };
  }
}

/** Why the verifier could not decide. */
export type VerifierFailure = 'jwks_unavailable' | 'replay_cache_full';

/** The verifier could not decide about a token: not the caller's fault, answered as a server error. */
export class SvcVerifierError extends Error {
  override readonly name = 'SvcVerifierError';
  readonly failure: VerifierFailure;

  constructor(failure: VerifierFailure, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.failure = failure;
  }
}
