/** You > Account forms (docs/dashboard.md "Forms"): the password change's two fields; the rest are buttons. */
import { defineForm, NO_FIELDS } from '../form.ts';

export const ACCOUNT_FORMS = {
  password: defineForm(null, '/account/password', {
    type: 'object',
    properties: { current: { type: 'string' }, password: { type: 'string' } },
    required: ['current', 'password'],
  }),
  revokeKey: defineForm('revokePersonalKey', '/account/keys/:id/revoke', NO_FIELDS),
  revokeApp: defineForm('revokeApp', '/account/apps/:id/revoke', NO_FIELDS),
  endSession: defineForm(null, '/account/sessions/:handle/end', NO_FIELDS),
  endOthers: defineForm(null, '/account/sessions/end-others', NO_FIELDS),
  verifyEmail: defineForm(null, '/account/verify-email', NO_FIELDS),
} as const;
