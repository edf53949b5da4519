/**
 * The SCIM family (docs/errors.md "Three families, one table"): the refusals of the SCIM 2.0
 * endpoints (docs/auth-service.md "SCIM provisioning"), answered in the shape of RFC 7644 §3.12:
 * `schemas` naming the error message, `status` as a string, `scimType` for the 400s and 409s the
 * RFC names (Table 9), and `detail` the sentence the directory's administrator reads. Each name's
 * status is written here and nowhere else.
 */

/** The `scimType` values of RFC 7644 §3.12 Table 9 that svc sends, with their statuses. */
const SCIM_TYPE_STATUS = {
  invalidFilter: 400,
  tooMany: 400,
  uniqueness: 409,
  mutability: 400,
  invalidSyntax: 400,
  invalidPath: 400,
  noTarget: 400,
  invalidValue: 400,
} as const;

/** The refusals RFC 7644 §3.12 gives a status but no `scimType` (Table 8). */
const SCIM_HTTP_STATUS = {
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  too_large: 413,
  too_many: 429,
  not_implemented: 501,
  unavailable: 503,
  failed: 500,
} as const;

type ScimType = keyof typeof SCIM_TYPE_STATUS;
/** Why a SCIM endpoint refused. */
type ScimRefusal = ScimType | keyof typeof SCIM_HTTP_STATUS;

/** RFC 7644 §3.12: the URI of the error message schema. */
const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

const isScimType = (why: ScimRefusal): why is ScimType => why in SCIM_TYPE_STATUS;

/** The HTTP status of a SCIM refusal. */
export function scimStatus(why: ScimRefusal): number {
  return isScimType(why) ? SCIM_TYPE_STATUS[why] : SCIM_HTTP_STATUS[why];
}

/** The body of a SCIM refusal (RFC 7644 §3.12): `status` is a string, `scimType` only for the RFC's named types. */
export function scimErrorBody(
  why: ScimRefusal,
  detail: string,
): { schemas: string[]; status: string; scimType?: ScimType; detail: string } {
  return {
    schemas: [SCIM_ERROR_SCHEMA],
    status: String(scimStatus(why)),
    ...(isScimType(why) ? { scimType: why } : {}),
    detail,
  };
}

/** A SCIM endpoint's refusal: the name decides the status and `scimType`; `message` is the public `detail`. */
export class ScimError extends Error {
  override name = 'ScimError';
  readonly why: ScimRefusal;

  constructor(why: ScimRefusal, message: string) {
    super(message);
    this.why = why;
  }
}

/** Every name of the family with its status, for the docs' table and its test. */
export const SCIM_REFUSALS: Readonly<Record<ScimRefusal, number>> = { ...SCIM_TYPE_STATUS, ...SCIM_HTTP_STATUS };
