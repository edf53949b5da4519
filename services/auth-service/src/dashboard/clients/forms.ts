/**
 * Workspace > Clients forms (docs/dashboard.md "Forms"): the policy (its mode, and each list as
 * lines of `kind value`, read into the contract's rules by the route) and a decision on a client.
 */
import { MANAGEMENT_OPERATIONS } from '@svc/management/contract';
import { defineForm } from '../form.ts';

const text = { type: 'string' } as const;
const CLIENT_FIELD = { type: 'object', properties: { client: text }, required: ['client'] } as const;

export const CLIENT_FORMS = {
  policy: defineForm('setClientPolicy', '/workspaces/:ws/clients/policy', {
    type: 'object',
    properties: { mode: MANAGEMENT_OPERATIONS.setClientPolicy.body.properties.mode, allow: text, deny: text },
    required: ['mode'],
  }),
  approve: defineForm('approveClient', '/workspaces/:ws/clients/approve', CLIENT_FIELD),
  deny: defineForm('denyClient', '/workspaces/:ws/clients/deny', CLIENT_FIELD),
} as const;
