/**
 * A project's access requests, members and invitations (docs/management.md "Access request lifecycle",
 * "Members", "Invitations"): an ADMIN of the project decides and manages; members see the member
 * list; only a confirmed account becomes a member.
 */
import { AccountError, EMAIL_PATTERN, type Invitation } from '@svc/accounts';
import { isKeyLevel, type KeyLevel } from '@svc/policy';
import type { ManagementContext } from './context.ts';
import { parsePageQuery } from './list-page.ts';
import type { Management } from './management.ts';
import { ManagementError } from './types.ts';

/** The operations of this group, on the shared context (each is described on Management). */
export function memberOperations(
  ctx: ManagementContext,
): Pick<
  Management,
  | 'requests'
  | 'pendingRequests'
  | 'decideRequest'
  | 'accessRequested'
  | 'members'
  | 'addMember'
  | 'cancelInvitation'
  | 'setRole'
  | 'removeMember'
> {
  const { accounts, deps, notices, notify, note, full, projectFor, adminOf } = ctx;
  return {
    async requests(actor, slug, input) {
      const { cursor, limit } = parsePageQuery(input);
      await adminOf(actor, slug, 'see access requests');
      const page = await accounts.accessRequests.page(slug, cursor, limit);
      return {
        canDecide: true,
        next: page.next,
        requests: page.requests.map((r) => ({
          id: r.id,
          requester: r.requester.label,
          level: r.requested_level,
          reason: r.reason,
          createdAt: Date.parse(r.created_at),
          status: r.status,
          grantedLevel: r.granted_level,
          decidedBy: r.decided_by,
          decidedAt: r.decided_at ? Date.parse(r.decided_at) : null,
        })),
      };
    },

    async pendingRequests(actor, slug) {
      const { role } = await projectFor(actor, slug);
      return role === 'ADMIN' ? accounts.accessRequests.pendingCount(slug) : 0;
    },

    async decideRequest(actor, slug, id, decision) {
      const { project } = await adminOf(actor, slug, 'decide access requests');
      const request = await accounts.accessRequests.get(id);
      if (!request || request.project !== slug) throw new ManagementError(404, 'There is no such access request in this project.');
      if (request.status !== 'pending') throw new ManagementError(409, `This request was already ${request.status}.`);
      if (decision.approve && !isKeyLevel(decision.level)) throw new ManagementError(400, 'Choose VIEWER, EDITOR or ADMIN.', 'level');
      if (decision.approve && request.requester.type === 'user' && !(await accounts.users.get(request.requester.id))?.emailVerifiedAt)
        throw new ManagementError(
          409,
          `${request.requester.label} has not confirmed that address, so it cannot become a member; add it as a member instead to mail it an invitation.`,
        );
      const decided = await accounts.accessRequests
        .decide(id, decision.approve, decision.approve ? (decision.level as KeyLevel) : undefined, actor.label)
        .catch(full);
      notify(notices.accessDecided(decided, decision.approve ? decision.level : null));
      await note(
        actor,
        project.workspace,
        decision.approve ? 'access_request.approved' : 'access_request.denied',
        `access_request:${id} (${request.requester.label})`,
        {
          project: slug,
          asked: request.requested_level,
          ...(decision.approve ? { granted: decision.level } : {}),
        },
      );
    },

    async accessRequested(request) {
      const mailed = request.notifyAdmins && deps.mailer?.enabled === true;
      if (mailed) notify(notices.accessRequested(request));
      return { mailed };
    },

    async members(actor, slug) {
      const { project, role } = await projectFor(actor, slug);
      const owner = (await accounts.workspaces.get(project.workspace))?.owner;
      const rows = [];
      if (owner) rows.push({ userId: owner, email: (await accounts.users.get(owner))?.email ?? owner, role: 'ADMIN', owner: true });
      for (const m of await accounts.workspaces.members(slug)) {
        if (m.userId === owner) continue;
        rows.push({ userId: m.userId, email: (await accounts.users.get(m.userId))?.email ?? m.userId, role: m.role, owner: false });
      }
      const invitations = (await accounts.invitations.list(slug)).map((i: Invitation) => ({
        id: i.id,
        email: i.email,
        role: i.role,
        invitedBy: i.invitedBy,
        createdAt: i.createdAt,
        expiresAt: i.expiresAt,
      }));
      return { members: rows, invitations, canManage: role === 'ADMIN' };
    },

    async addMember(actor, slug, input) {
      const { project } = await adminOf(actor, slug, 'add members');
      const role = input.role;
      if (!isKeyLevel(role)) throw new ManagementError(400, 'Choose VIEWER, EDITOR or ADMIN.', 'role');
      const email = input.email.trim().toLowerCase();
      if (!EMAIL_PATTERN.test(email)) throw new ManagementError(400, `"${input.email}" is not an email address.`, 'email');
      const user = await accounts.users.findByEmail(email);
      // Adding (or inviting) someone who already holds a role here would change it unseen: roles change in the list.
      const owner = (await accounts.workspaces.get(project.workspace))?.owner;
      const current =
        user && (user.id === owner ? 'ADMIN' : (await accounts.workspaces.members(slug)).find((m) => m.userId === user.id)?.role);
      if (current)
        throw new ManagementError(
          409,
          `${email} is already ${current} on ${slug}; change their role in the members list instead.`,
          'email',
        );
      if (user?.emailVerifiedAt) {
        await accounts.workspaces.setRole(slug, user.id, role).catch(full);
        await note(actor, project.workspace, 'member.added', `user:${user.email}`, { project: slug, role });
        return { invited: false };
      }
      // No confirmed account has this address: only whoever reads its mail may take the role.
      if (!deps.mailer?.enabled)
        throw new ManagementError(
          409,
          `No confirmed svc account uses ${email}, and email is off on this server, so no invitation can be sent. Ask them to confirm their address (an operator can: svc-admin user confirm-email).`,
          'email',
        );
      const { invitation, token } = await accounts.invitations
        .create({ project: slug, email, role, invitedBy: actor.label })
        .catch((err: unknown) => {
          if (err instanceof AccountError && err.code === 'conflict') throw new ManagementError(409, err.message, 'email');
          return full(err);
        });
      notify(notices.invited(invitation, `${deps.authUrl ?? ''}/invitation?token=${token}`));
      await note(actor, project.workspace, 'member.invited', `user:${email}`, {
        project: slug,
        role,
        expires: new Date(invitation.expiresAt).toISOString(),
      });
      return { invited: true };
    },

    async cancelInvitation(actor, slug, id) {
      const { project } = await adminOf(actor, slug, 'cancel invitations');
      const invitation = await accounts.invitations.get(id);
      if (!invitation || !(await accounts.invitations.cancel(slug, id)))
        throw new ManagementError(404, 'There is no such pending invitation in this project.');
      await note(actor, project.workspace, 'member.invitation_cancelled', `user:${invitation.email}`, { project: slug });
    },

    async setRole(actor, slug, userId, role) {
      const { project } = await adminOf(actor, slug, 'change roles');
      if (!isKeyLevel(role)) throw new ManagementError(400, 'Choose VIEWER, EDITOR or ADMIN.', 'role');
      if ((await accounts.workspaces.get(project.workspace))?.owner === userId)
        throw new ManagementError(409, "The workspace owner's role cannot change.");
      if (!(await accounts.workspaces.members(slug)).some((m) => m.userId === userId))
        throw new ManagementError(404, 'That person is not a member.');
      await accounts.workspaces.setRole(slug, userId, role);
      await note(actor, project.workspace, 'member.role_changed', `user:${(await accounts.users.get(userId))?.email ?? userId}`, {
        project: slug,
        role,
      });
    },

    async removeMember(actor, slug, userId) {
      const { project } = await adminOf(actor, slug, 'remove members');
      if ((await accounts.workspaces.get(project.workspace))?.owner === userId)
        throw new ManagementError(409, 'The workspace owner cannot be removed.');
      if (!(await accounts.workspaces.members(slug)).some((m) => m.userId === userId))
        throw new ManagementError(404, 'That person is not a member.');
      await accounts.workspaces.setRole(slug, userId, 'NONE');
      // What they reached through this project ends with their role: the apps they authorized for
      // it (their OAuth grants) are revoked; their personal keys reach only projects they have a role on.
      const grants = await accounts.oauthGrants.revokeForProject(userId, slug);
      await note(actor, project.workspace, 'member.removed', `user:${(await accounts.users.get(userId))?.email ?? userId}`, {
        project: slug,
        oauth_grants_revoked: String(grants),
      });
    },
  };
}
