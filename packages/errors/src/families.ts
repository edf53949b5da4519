/**
 * The two refusal families beside the wire catalogue (docs/errors.md "Three families, one table"):
 * the OAuth endpoints' error codes and the pages' refusals. Each is a closed set of names mapped
 * to an HTTP status here and nowhere else, so no endpoint or page writes a status of its own; the
 * public text goes with the name, the internal detail only to the log.
 */

/**
 * The `error` of an OAuth endpoint's answer, from the RFCs that define them: RFC 6749 §5.2
 * (token), RFC 7591 §3.2.2 (registration), RFC 8628 §3.5 (device), RFC 8707 §2 (resource),
 * RFC 9449 §12.2 (DPoP), plus `temporarily_unavailable` (RFC 6749 §4.1.2.1) and `server_error`.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'authorization_pending'
  | 'slow_down'
  | 'expired_token'
  | 'invalid_client_metadata'
  | 'invalid_redirect_uri'
  | 'invalid_dpop_proof'
  | 'use_dpop_nonce'
  | 'not_found'
  | 'temporarily_unavailable'
  | 'server_error';

const OAUTH_STATUS = {
  invalid_request: 400,
  // RFC 6749 §5.2: 401 when the client tried to authenticate (the only way our endpoints send it).
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  access_denied: 400,
  authorization_pending: 400,
  slow_down: 400,
  expired_token: 400,
  invalid_client_metadata: 400,
  invalid_redirect_uri: 400,
  invalid_dpop_proof: 400,
  use_dpop_nonce: 400,
  not_found: 404,
  temporarily_unavailable: 503,
  server_error: 500,
} as const satisfies Record<OAuthErrorCode, number>;

/**
 * An OAuth endpoint's refusal: one of the RFCs' codes, or one of the two HTTP-level refusals those
 * RFCs have no code for, answered with the nearest code and their own status: a body over the
 * bound (`invalid_request`, 413) and a throttled caller (`temporarily_unavailable`, 429).
 */
export type OAuthRefusal = OAuthErrorCode | 'too_large' | 'too_many';

const OAUTH_HTTP_LEVEL = {
  too_large: { error: 'invalid_request', status: 413 },
  too_many: { error: 'temporarily_unavailable', status: 429 },
} as const satisfies Record<Exclude<OAuthRefusal, OAuthErrorCode>, { error: OAuthErrorCode; status: number }>;

/** The `error` and the status an OAuth endpoint answers a refusal with. */
export function oauthAnswer(refusal: OAuthRefusal): { error: OAuthErrorCode; status: number } {
  if (refusal === 'too_large' || refusal === 'too_many') return OAUTH_HTTP_LEVEL[refusal];
  return { error: refusal, status: OAUTH_STATUS[refusal] };
}

/**
 * Why a page refused: a person reads the page's own words; the name decides the status (and a
 * test, docs/errors.md "Pages", that no page answers another).
 */
export type PageRefusal =
  /** The form's fields were read and one is wrong: the page says which. */
  | 'invalid_form'
  /** A password, code or factor did not match. */
  | 'wrong_credentials'
  /** The form's anti-forgery token or the interaction expired: start again. */
  | 'form_expired'
  /** Signed in, but this person may not do this (no access to the project, an address not allowed). */
  | 'forbidden'
  | 'not_found'
  /** The thing changed state meanwhile (a request already decided, a name taken). */
  | 'conflict'
  | 'too_large'
  /** The form's encoding or charset is not one svc reads. */
  | 'unsupported_form'
  | 'too_many'
  /** An emailed link or a sign-in request that expired or was already used: start again. */
  | 'link_expired'
  /** The workspace's identity provider failed to answer as it should (single sign-on). */
  | 'provider_failed'
  /** Redis is unreachable (docs/operations.md "When Redis stops answering"). */
  | 'store_down'
  /** Anything else: the page names nothing internal. */
  | 'failed';

const PAGE_STATUS = {
  invalid_form: 400,
  wrong_credentials: 401,
  form_expired: 403,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported_form: 415,
  too_many: 429,
  link_expired: 400,
  provider_failed: 502,
  store_down: 503,
  failed: 500,
} as const satisfies Record<PageRefusal, number>;

/** The status a page answers with when it refuses for `why`. */
export function pageStatus(why: PageRefusal): number {
  return PAGE_STATUS[why];
}

/**
 * The page refusal for a layer's refusal that a page shows (a management, SSO, account or body
 * parser error carries the status of its own family): each status to the name that means it; any
 * other client error is `invalid_form` (the client's problem stays a 4xx), anything else `failed`.
 */
export function pageRefusalOf(status: number): PageRefusal {
  const found = (Object.entries(PAGE_STATUS) as [PageRefusal, number][]).find(([name, s]) => s === status && !SAME_STATUS_LATER.has(name));
  if (found) return found[0];
  return status >= 400 && status <= 499 ? 'invalid_form' : 'failed';
}
/** Names that share a status with one listed before them, never chosen by pageRefusalOf. */
const SAME_STATUS_LATER = new Set<PageRefusal>(['form_expired', 'link_expired']);

/** Every name of the two families with its status, for the docs' table and its test. */
export const REFUSAL_FAMILIES = {
  oauth: OAUTH_STATUS as Readonly<Record<OAuthErrorCode, number>>,
  oauthHttpLevel: OAUTH_HTTP_LEVEL as Readonly<Record<'too_large' | 'too_many', { error: OAuthErrorCode; status: number }>>,
  page: PAGE_STATUS as Readonly<Record<PageRefusal, number>>,
};
