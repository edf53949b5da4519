/** Project > Access requests forms (docs/dashboard.md "Forms"): the contract's approve and deny bodies. */
import { MANAGEMENT_OPERATIONS } from '@svc/management/contract';
import { defineForm } from '../form.ts';

export const REQUEST_FORMS = {
  approve: defineForm('approveAccessRequest', '/projects/:slug/requests/:id/approve', MANAGEMENT_OPERATIONS.approveAccessRequest.body),
  deny: defineForm('denyAccessRequest', '/projects/:slug/requests/:id/deny', MANAGEMENT_OPERATIONS.denyAccessRequest.body),
} as const;
