/** Workspace > Service accounts forms (docs/dashboard.md "Forms"): the contract's create and grant bodies, confirmations. */
import { MANAGEMENT_OPERATIONS } from '@svc/management/contract';
import { CONFIRM_FIELDS, defineForm } from '../form.ts';

export const BOT_FORMS = {
  create: defineForm('createServiceAccount', '/workspaces/:ws/service-accounts', MANAGEMENT_OPERATIONS.createServiceAccount.body),
  grant: defineForm('grantServiceAccount', '/workspaces/:ws/service-accounts/:id/grant', MANAGEMENT_OPERATIONS.grantServiceAccount.body),
  // The first step shows the confirmation with the overlap to choose; `confirm=yes` with it acts.
  rotate: defineForm('rotateServiceAccount', '/workspaces/:ws/service-accounts/:id/rotate', {
    type: 'object',
    properties: { ...CONFIRM_FIELDS.properties, ...MANAGEMENT_OPERATIONS.rotateServiceAccount.body.properties },
  }),
  revoke: defineForm('revokeServiceAccount', '/workspaces/:ws/service-accounts/:id/revoke', CONFIRM_FIELDS),
} as const;
