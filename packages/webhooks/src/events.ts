/**
 * The public event types and the audit actions they come from (docs/webhooks.md "Events"). An
 * audit action not listed here is never sent.
 */
import type { AuditAction } from '@svc/accounts';

export const WEBHOOK_EVENT_TYPES = [
  'key.created',
  'key.rolled',
  'key.revoked',
  'key.expired',
  'key.expiring',
  'key.disabled',
  'key.enabled',
  'key.leaked',
  'member.added',
  'member.role_changed',
  'member.removed',
  'member.deprovisioned',
  'member.invited',
  'member.invitation_accepted',
  'service_account.created',
  'service_account.key_rotated',
  'service_account.revoked',
  'access_request.created',
  'access_request.decided',
  'approval.requested',
  'approval.decided',
  'client.approval_requested',
  'client.decided',
  'quota.warning',
  'webhook.disabled',
  'upstream.added',
  'upstream.removed',
  'upstream.tools_changed',
  'webhook.test',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** What an endpoint may subscribe to: every event but the test event, which is sent on request. */
export const SUBSCRIBABLE_EVENT_TYPES = WEBHOOK_EVENT_TYPES.filter((t) => t !== 'webhook.test');

/** Which event an audit action is, when it is one. */
const EVENT_OF_ACTION: Partial<Record<AuditAction, WebhookEventType>> = {
  'key.created': 'key.created',
  'key.rolled': 'key.rolled',
  'key.revoked': 'key.revoked',
  'key.expired': 'key.expired',
  'key.expiring': 'key.expiring',
  'key.disabled': 'key.disabled',
  'key.enabled': 'key.enabled',
  'key.reported': 'key.leaked',
  'member.added': 'member.added',
  'member.role_changed': 'member.role_changed',
  'member.removed': 'member.removed',
  'scim.user_deprovisioned': 'member.deprovisioned',
  'member.invited': 'member.invited',
  'member.invitation_accepted': 'member.invitation_accepted',
  'service_account.created': 'service_account.created',
  'service_account.key_rotated': 'service_account.key_rotated',
  'service_account.revoked': 'service_account.revoked',
  'access_request.created': 'access_request.created',
  'access_request.approved': 'access_request.decided',
  'access_request.denied': 'access_request.decided',
  'approval.requested': 'approval.requested',
  'approval.approved': 'approval.decided',
  'approval.denied': 'approval.decided',
  'client.approval_requested': 'client.approval_requested',
  'client.approved': 'client.decided',
  'client.denied': 'client.decided',
  'quota.warning': 'quota.warning',
  'webhook.disabled': 'webhook.disabled',
  'upstream.added': 'upstream.added',
  'upstream.removed': 'upstream.removed',
  'upstream.tools_changed': 'upstream.tools_changed',
};

export function eventOf(action: string): WebhookEventType | null {
  return (EVENT_OF_ACTION as Record<string, WebhookEventType | undefined>)[action] ?? null;
}
