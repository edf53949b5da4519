/** Workspace > SCIM provisioning forms (docs/dashboard.md "Forms"): make a token; revoke one, confirmed first. */
import { CONFIRM_FIELDS, defineForm, NO_FIELDS } from '../form.ts';

export const SCIM_FORMS = {
  create: defineForm('createScimToken', '/workspaces/:ws/scim/tokens', NO_FIELDS),
  revoke: defineForm('revokeScimToken', '/workspaces/:ws/scim/tokens/:id/revoke', CONFIRM_FIELDS),
} as const;
