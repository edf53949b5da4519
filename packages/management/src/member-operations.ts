/**
 * A project's members and invitations (docs/management.md "Members", "Invitations"): an ADMIN of
 * the project manages; members see the member list; only a confirmed account becomes a member.
 * Its access requests are access-request-operations.ts.
 */
import { AccountError, EMAIL_PATTERN, type Invitation } from '@svc/accounts';
import { isKeyLevel } from '@svc/policy';
import type { ManagementContext } from './context.ts';
import type { AnswerOf } from './contract/define.ts';
import type * as contract from './contract/members.ts';
import { ManagementError, type Actor, type InvitationRow, type MemberRow } from './types.ts';

/** A project's members and their invitations: an ADMIN of the project manages them. */
export interface MemberOperations {
  listMembers(actor: Actor, project: string): Promise<{ members: MemberRow[]; invitations: InvitationRow[]; canManage: boolean }>;
  /**
   * The address's role on the project: a member's role changes (`role_changed`); a confirmed
   * account becomes a member (`added`); any other address is mailed an invitation (`invited`).
   */
  putMember(
    actor: Actor,
    project: string,
    input: { email: string; role: string },
  ): Promise<{ email: string; role: string; outcome: 'role_changed' | 'added' | 'invited' }>;
  cancelInvitation(actor: Actor, project: string, id: string): Promise<AnswerOf<typeof contract.cancelInvitation>>;
  removeMember(actor: Actor, project: string, userId: string): Promise<AnswerOf<typeof contract.removeMember>>;
}

/**
 * putMember's two halves, as the dashboard's Members page offers them (its add form and each row's
 * role); the layer checks them by putMember's rules (rules.ts VARIANTS).
 */
export interface MemberInternals {
  /**
   * A confirmed account becomes a member at once; any other address is mailed an invitation
   * (`invited`); an address that already holds a role here is a 409 (roles change in the list).
   */
  addMember(actor: Actor, project: string, input: { email: string; role: string }): Promise<{ invited: boolean }>;
  /** A member's new role (not the workspace owner's). */
  setRole(actor: Actor, project: string, userId: string, role: string): Promise<void>;
}

/** The operations of this group, on the shared context (each is described on MemberOperations). */
export function memberOperations(ctx: ManagementContext): MemberOperations & MemberInternals {
  const { accounts, deps, notices, notify, note, full, projectFor, adminOf } = ctx;
  const layer: MemberOperations & MemberInternals = {
    async listMembers(actor, slug) {
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
      return { id, cancelled: true };
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
      return { user: userId, removed: true };
    },

    // A member is found by address (as listed); an address without a role here is added or invited.
    async putMember(actor, slug, input) {
      const email = input.email.trim();
      const existing = (await layer.listMembers(actor, slug)).members.find((x) => x.email === email.toLowerCase());
      if (existing) {
        await layer.setRole(actor, slug, existing.userId, input.role);
        return { email: email.toLowerCase(), role: input.role, outcome: 'role_changed' };
      }
      const { invited } = await layer.addMember(actor, slug, { email, role: input.role });
      return { email: email.toLowerCase(), role: input.role, outcome: invited ? 'invited' : 'added' };
    },
  };
  return layer;
}
