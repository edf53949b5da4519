/**
 * The bounds of SCIM provisioning, each stated with its value in docs/auth-service.md "SCIM
 * provisioning". One place: the store, the endpoints, the contract and the tests read them here.
 */

/** Live SCIM tokens a workspace may hold at once: one in use and its replacement during a rotation. */
export const SCIM_MAX_TOKENS = 2;
/** The largest SCIM request body read (RFC 7644 §3.1: the server may refuse a large one with 413). */
export const SCIM_MAX_BODY_BYTES = 64 * 1024;
/** A list's page when no `count` is asked for, and the most a page holds (RFC 7644 §3.4.2.4). */
export const SCIM_PAGE = 100;
export const SCIM_MAX_PAGE = 200;
/** Users and groups one workspace's directory may hold. */
export const SCIM_MAX_USERS = 10_000;
export const SCIM_MAX_GROUPS = 1_000;
/** Members one group may list. */
export const SCIM_MAX_GROUP_MEMBERS = 10_000;
/** Operations one PATCH request may carry (RFC 7644 §3.5.2). */
export const SCIM_MAX_PATCH_OPERATIONS = 100;
/** The longest userName, externalId, displayName or group name kept. */
export const SCIM_MAX_STRING = 256;
/** The longest filter read. */
export const SCIM_MAX_FILTER = 512;
/**
 * The workspace's SCIM bucket: requests per minute (a directory's first sync of a large company
 * sends one request per person; Entra ID paces itself well below this).
 */
export const SCIM_REQUESTS_PER_MINUTE = 600;
