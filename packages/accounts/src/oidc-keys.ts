/**
 * Where the auth-service's oidc-provider records live in the shared Redis, spelled once for the
 * auth-service's adapter (writer) and the gateway's OAuth verifier (reader). Record ids are token
 * values (`svc_at_...`, refresh tokens, device and authorization codes, session ids), so keys carry
 * the SHA-256 of the id, never the id itself: a key listing, a slow log or a MONITOR trace does
 * not hand out live tokens. The ids are high-entropy random values, so an unkeyed digest suffices.
 */
import { createHash } from 'node:crypto';

const OIDC_PREFIX = 'svc:oidc:';

/** base64url SHA-256 of a record id. */
export function oidcDigest(id: string): string {
  return createHash('sha256').update(id).digest('base64url');
}

/** The hash holding one oidc-provider model instance: {payload (JSON), consumed (epoch s)}. */
export function oidcRecordKey(model: string, id: string): string {
  return oidcRecordKeyByDigest(model, oidcDigest(id));
}

export function oidcRecordKeyByDigest(model: string, digest: string): string {
  return `${OIDC_PREFIX}${model}:${digest}`;
}

/** A session uid -> the digest of its Session record id (the gateway checks a session still exists). */
export function oidcSessionUidKey(uid: string): string {
  return `${OIDC_PREFIX}session-uid:${uid}`;
}

/** The record keys of one grant (its tokens and codes): deleted together when the grant is revoked. */
export function oidcGrantKeysKey(grantId: string): string {
  return `${OIDC_PREFIX}grant-keys:${grantId}`;
}

/** The grant ids a person has given (set): the account page's "authorized apps". */
export function oidcAccountGrantsKey(accountId: string): string {
  return `${OIDC_PREFIX}account-grants:${accountId}`;
}
