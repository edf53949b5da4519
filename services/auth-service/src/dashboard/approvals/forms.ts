/** Project > Approvals forms (docs/dashboard.md "Forms"): the contract's approve and deny bodies. */
import { MANAGEMENT_OPERATIONS } from '@svc/management/contract';
import { defineForm } from '../form.ts';

export const APPROVAL_FORMS = {
  approve: defineForm('approveApproval', '/projects/:slug/approvals/:id/approve', MANAGEMENT_OPERATIONS.approveApproval.body),
  deny: defineForm('denyApproval', '/projects/:slug/approvals/:id/deny', MANAGEMENT_OPERATIONS.denyApproval.body),
} as const;
