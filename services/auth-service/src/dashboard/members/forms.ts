/**
 * Project > Members forms (docs/dashboard.md "Forms"): the contract's putMember body to add, its
 * role alone to change a member's role (the member is in the path), a confirmation to remove a
 * member or revoke an invitation.
 */
import { MANAGEMENT_OPERATIONS } from '@svc/management/contract';
import { CONFIRM_FIELDS, defineForm } from '../form.ts';

const { putMember } = MANAGEMENT_OPERATIONS;

export const MEMBER_FORMS = {
  add: defineForm('putMember', '/projects/:slug/members', putMember.body),
  cancelInvitation: defineForm('cancelInvitation', '/projects/:slug/invitations/:id/cancel', CONFIRM_FIELDS),
  role: defineForm('putMember', '/projects/:slug/members/:user/role', {
    type: 'object',
    properties: { role: putMember.body.properties.role },
    required: ['role'],
  }),
  remove: defineForm('removeMember', '/projects/:slug/members/:user/remove', CONFIRM_FIELDS),
} as const;
