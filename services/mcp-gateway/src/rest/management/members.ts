/** The routes of a project's members and invitations (docs/management.md "Operations", "Invitations"). */
import { handle, iso, type ManagementRoute } from './handle.ts';

export const MEMBER_ROUTES: readonly ManagementRoute[] = [
  handle('listMembers', async (m, a, { params }) => {
    const { members, invitations } = await m.listMembers(a, params.project);
    return {
      body: {
        members,
        invitations: invitations.map((i) => ({ ...i, createdAt: iso(i.createdAt), expiresAt: iso(i.expiresAt) })),
      },
    };
  }),
  handle('putMember', async (m, a, { params, body }) => {
    const email = body.email.trim();
    const role = body.role;
    const existing = (await m.listMembers(a, params.project)).members.find((x) => x.email === email.toLowerCase());
    if (existing) {
      await m.setRole(a, params.project, existing.userId, role);
      return { status: 200, body: { email: email.toLowerCase(), role } };
    }
    // An address without a confirmed account is invited (docs/management.md "Invitations"): 202, not a member yet.
    const { invited } = await m.addMember(a, params.project, { email, role });
    if (invited) return { status: 202, body: { email: email.toLowerCase(), role, invited: true } };
    return { status: 201, body: { email: email.toLowerCase(), role } };
  }),
  handle('cancelInvitation', async (m, a, { params }) => {
    await m.cancelInvitation(a, params.project, params.id);
    return { body: { id: params.id, cancelled: true } };
  }),
  handle('removeMember', async (m, a, { params }) => {
    await m.removeMember(a, params.project, params.user);
    return { body: { user: params.user, removed: true } };
  }),
];
