/**
 * The wire adapters of a project's members (docs/management.md "Operations", "Invitations"): the
 * list's invitations with the wire's times; putting a member answers the status of its outcome.
 * Cancelling an invitation and removing a member answer as the layer does.
 */
import { iso, type WireAdapters } from './wire.ts';

/** putMember's status: 200 a role changed, 201 a confirmed account added, 202 an address invited. */
const PUT_STATUS = { role_changed: 200, added: 201, invited: 202 } as const;

export const MEMBER_ADAPTERS = {
  listMembers: async (m, a, { params }) => {
    const { members, invitations } = await m.listMembers(a, params.project);
    return {
      body: {
        members,
        invitations: invitations.map((i) => ({ ...i, createdAt: iso(i.createdAt), expiresAt: iso(i.expiresAt) })),
      },
    };
  },
  putMember: async (m, a, { params, body }) => {
    const { email, outcome } = await m.putMember(a, params.project, body);
    // An address without a confirmed account is invited (docs/management.md "Invitations"): 202, not a member yet.
    return {
      status: PUT_STATUS[outcome],
      body: outcome === 'invited' ? { email, role: body.role, invited: true as const } : { email, role: body.role },
    };
  },
} satisfies WireAdapters;
