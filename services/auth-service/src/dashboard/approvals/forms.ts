/** Project > Approvals forms (docs/dashboard.md "Forms"): the contract's approve and deny bodies. */
import { MANAGEMENT_OPERATIONS } from '@svc/management/contract';
import { defineForm } from '../form.ts';

const text = { type: 'string' } as const;
const PASSKEY_FIELDS = { type: 'object', properties: { credential: text, nonce: text }, required: ['credential', 'nonce'] } as const;

export const APPROVAL_FORMS = {
  approve: defineForm('approveApproval', '/projects/:slug/approvals/:id/approve', MANAGEMENT_OPERATIONS.approveApproval.body),
  deny: defineForm('denyApproval', '/projects/:slug/approvals/:id/deny', MANAGEMENT_OPERATIONS.denyApproval.body),
  // The passkey's assertion over the call (docs/approvals.md "With a passkey"): the nonce its challenge was made with.
  approveWithPasskey: defineForm('approveApproval', '/projects/:slug/approvals/:id/approve-passkey', PASSKEY_FIELDS),
} as const;
