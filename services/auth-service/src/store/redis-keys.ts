/**
 * Every Redis key the auth-service writes (docs/redis-schema.md, section "auth-service
 * (oidc-provider)"). All start with `svc:oidc:`; the record keys come from the record codec of
 * @svc/accounts (oidc-records.ts), which the gateway's OAuth verifier reads them through too.
 */
import { oidcGrantKeysKey, oidcRecordKey, oidcRecordKeyByDigest, oidcSessionUidKey, oidcUserCodeKey } from '@svc/accounts';

export const OK = {
  /** One oidc-provider model instance, keyed by the SHA-256 of its id: hash {payload, consumed}. */
  model: oidcRecordKey,
  /** The same record when only the digest of its id is known (lookups store digests). */
  modelByDigest: oidcRecordKeyByDigest,
  /** Keys to delete when a grant is revoked (set). */
  grant: oidcGrantKeysKey,
  /** Normalised user code -> digest of the DeviceCode id. */
  userCode: oidcUserCodeKey,
  /**
   * A device code whose user code was confirmed at /device (RFC 8628 §3.3; docs/security.md
   * "Single-use values"): SHA-256 of the DeviceCode id -> "1", SET NX for the code's remaining life.
   */
  userCodeClaim: (idDigest: string) => `svc:oidc:user-code-claim:${idDigest}`,
  /** Session uid -> digest of the Session id. */
  sessionUid: oidcSessionUidKey,
  /** Device-flow polling state (RFC 8628 §3.5): hash {last (ms), interval (s)}. */
  poll: (deviceCodeHash: string) => `svc:oidc:poll:${deviceCodeHash}`,
  /** Our own browser session (sign-in pages, dashboard): hash {userId, createdAt, agent}. */
  webSession: (idHash: string) => `svc:oidc:web-session:${idHash}`,
  /** A person's browser sessions (set of session id hashes): the account page lists and ends them. */
  userWebSessions: (userId: string) => `svc:oidc:user-web-sessions:${userId}`,
  /** A person's oidc-provider sessions (set of Session record digests), ended with their browser sessions. */
  accountSessions: (accountId: string) => `svc:oidc:account-sessions:${accountId}`,
  /**
   * A new key waiting for its one reveal (docs/dashboard.md "A key is shown once"): sealed under
   * the browser's session cookie, read once with GETDEL, `REVEAL_TTL_SECONDS` at most.
   */
  reveal: (sessionHash: string, id: string) => `svc:oidc:reveal:${sessionHash}:${id}`,
  /**
   * A sign-in whose password was right, waiting for its second factor or its enrolment
   * (docs/auth-service.md "Second factor"): hash {userId, returnTo, stage}, SECOND_FACTOR_WAIT_SECONDS.
   */
  factorPending: (digest: string) => `svc:oidc:factor-pending:${digest}`,
  /**
   * A WebAuthn challenge (docs/auth-service.md "Passkeys"): JSON {challenge, purpose, userId} under
   * the SHA-256 of the browser's `svc_webauthn` cookie, read once with GETDEL, WEBAUTHN_CHALLENGE_TTL_SECONDS.
   */
  webauthnChallenge: (digest: string) => `svc:oidc:webauthn-challenge:${digest}`,
  /** Fixed-window attempt counters for sign-in and code entry. */
  throttle: (scope: string, subject: string) => `svc:oidc:throttle:${scope}:${subject}`,
  /** Refresh token digest -> which request rotates it (docs/security.md "Refresh tokens"). */
  refreshClaim: (tokenDigest: string) => `svc:oidc:refresh-claim:${tokenDigest}`,
  /** Refresh token digest -> the pair it was exchanged for, AES-256-GCM under a key derived from it. */
  refreshReplay: (tokenDigest: string) => `svc:oidc:refresh-replay:${tokenDigest}`,
  /** A password-reset link: SHA-256 of its token -> user id, 30 minutes (docs/auth-service.md "Password reset"). */
  passwordReset: (tokenDigest: string) => `svc:oidc:password-reset:${tokenDigest}`,
  /** An email-verification link: SHA-256 of its token -> user id, 24 hours (docs/auth-service.md "Email verification"). */
  emailVerify: (tokenDigest: string) => `svc:oidc:email-verify:${tokenDigest}`,
  /**
   * An ID-JAG's `jti`, used once (docs/auth-service.md "Enterprise-managed authorization"):
   * SHA-256 of issuer and jti -> "1", SET NX for the assertion's remaining life.
   */
  idJagJti: (digest: string) => `svc:oidc:id-jag-jti:${digest}`,
  /**
   * A workload token already traded (docs/workload-identity.md "Checks"): SHA-256 of the issuer and
   * the token's `jti` (or, when it has none, of the token itself) -> "1", SET NX until its `exp`.
   */
  workloadJti: (digest: string) => `svc:oidc:workload-jti:${digest}`,
  /**
   * A value oidc-provider's ReplayDetection sees once (a client assertion's or a DPoP proof's `jti`:
   * docs/security.md "Single-use values"): SHA-256 of the model's id -> "1", claimed with SET NX
   * for REPLAY_CLAIM_SECONDS, then kept for the value's own window.
   */
  replay: (idDigest: string) => `svc:oidc:replay:${idDigest}`,
  /** The provider's signing keys (private JWKS, JSON), created once. */
  jwks: () => 'svc:oidc:jwks',
};
