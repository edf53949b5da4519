/**
 * The audit log's vocabulary (docs/audit.md): the actions recorded and a page's sizes. Apart from
 * the store so that the management contract (and through it the CLI) can name them without
 * loading Redis or the password hashing.
 */

/** The actions recorded, one name each (docs/audit.md lists what each means). */
export const AUDIT_ACTIONS = [
  'project.created',
  'key.created',
  'key.rolled',
  'key.limit_changed',
  'key.revoked',
  'key.disabled',
  'key.enabled',
  'key.note_changed',
  'key.allowed_ips_changed',
  'key.reported',
  'key.expired',
  'key.expiring',
  'member.added',
  'member.role_changed',
  'member.removed',
  'member.invited',
  'member.invitation_cancelled',
  'member.invitation_accepted',
  'access_request.created',
  'access_request.approved',
  'access_request.denied',
  'approval.requested',
  'approval.approved',
  'approval.denied',
  'approval.expired',
  'approval.cancelled',
  'approval.ran',
  'service_account.created',
  'service_account.granted',
  'service_account.key_rotated',
  'service_account.revoked',
  'service_account.client_keys_set',
  'service_account.client_keys_removed',
  'trusted_issuer.added',
  'trusted_issuer.removed',
  'workload_issuer.added',
  'workload_issuer.removed',
  'workload.token_issued',
  'client_policy.changed',
  'client.approval_requested',
  'client.approved',
  'client.denied',
  'personal_key.revoked',
  'oauth_app.authorized',
  'oauth_app.revoked',
  'session.ended',
  'email.verified',
  'password.changed',
  'signin.succeeded',
  'signin.failed',
  'sso.configured',
  'sso.policy_changed',
  'sso.domain_claimed',
  'sso.domain_verified',
  'sso.domain_released',
  'sso.signed_in',
  'sso.refused',
  'scim.token_created',
  'scim.token_revoked',
  'scim.user_provisioned',
  'scim.user_changed',
  'scim.user_deprovisioned',
  'scim.group_changed',
  'sso.logged_out',
  'factor.enrolled',
  'factor.removed',
  'factor.recovery_used',
  'factor.reset',
  'factor.policy_changed',
  'signin.factor_failed',
  'quota.warning',
  'webhook.created',
  'webhook.changed',
  'webhook.removed',
  'webhook.secret_rotated',
  'webhook.disabled',
  'upstream.added',
  'upstream.changed',
  'upstream.refreshed',
  'upstream.tools_changed',
  'upstream.tool_changed',
  'upstream.removed',
  'tool.approval_changed',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Entries per page when none is asked for, and the most a page may hold (docs/audit.md "Reading"). */
export const AUDIT_PAGE = 50;
export const AUDIT_MAX_PAGE = 500;

/**
 * The most entries one filtered page reads (docs/audit.md "Reading"): a filter by person or date
 * reads the log newest first and stops here, answering what it found with a cursor to go on.
 */
export const AUDIT_FILTER_SCAN = 2000;
/** The longest person (actor) a filter may name: an email address is at most 254 characters. */
export const AUDIT_ACTOR_MAX = 320;
