/**
 * Every Redis key the auth-service writes (docs/redis-schema.md, section "auth-service
 * (oidc-provider)"). All start with `svc:oidc:`; the gateway's OAuth verifier reads the
 * AccessToken and Grant records through these same functions.
 */
export const OIDC_PREFIX = 'svc:oidc:';

export const OK = {
  /** One oidc-provider model instance: hash {payload (JSON), consumed (epoch s)}. */
  model: (model: string, id: string) => `svc:oidc:${model}:${id}`,
  /** Keys to delete when a grant is revoked (set). */
  grant: (grantId: string) => `svc:oidc:grant-keys:${grantId}`,
  userCode: (userCode: string) => `svc:oidc:user-code:${userCode}`,
  sessionUid: (uid: string) => `svc:oidc:session-uid:${uid}`,
  /** Device-flow polling state (RFC 8628 §3.5): hash {last (ms), interval (s)}. */
  poll: (deviceCodeHash: string) => `svc:oidc:poll:${deviceCodeHash}`,
  /** Our own browser session (sign-in pages): hash {userId, createdAt}. */
  webSession: (idHash: string) => `svc:oidc:web-session:${idHash}`,
  /** Fixed-window attempt counters for sign-in and code entry. */
  throttle: (scope: string, subject: string) => `svc:oidc:throttle:${scope}:${subject}`,
  /** The provider's signing keys (private JWKS, JSON), created once. */
  jwks: () => 'svc:oidc:jwks',
};
