/**
 * What a SCIM change does to svc's accounts (docs/auth-service.md "SCIM provisioning"):
 * - a user is the svc account of its address, which must be at a domain the workspace proved (the
 *   company vouches only for its own addresses, as its SSO does); the account is made on first
 *   provisioning, and one made by sign-up whose address was never proven is taken over as an SSO
 *   sign-in takes it over (docs/security.md "Unproven addresses");
 * - an active user's role on each of the workspace's projects is the highest role any of their
 *   SCIM groups maps to in the workspace's SSO policy (its group-to-role rows, matched by the
 *   group's displayName), else the policy's default role: one mapping for SSO and SCIM;
 * - an inactive or deleted user's access ends through the management layer's one function
 *   (endWorkspaceAccess), audited with the SCIM token as the actor.
 * The workspace's owner is never managed by the directory.
 */
import type { Accounts, User } from '@svc/accounts';
import { AccountError } from '@svc/accounts';
import { ScimError } from '@svc/errors';
import type { Management } from '@svc/management';
import type { Role } from '@svc/policy';
import type { ScimDirectory, ScimUser, SsoStore } from '@svc/sso';
import { roleFor } from '../sso/provision.ts';

/** The SCIM token a request came with: the actor of what it changes. */
export interface ScimCaller {
  workspace: string;
  tokenPrefix: string;
  source: string;
}

export interface ProvisioningDeps {
  accounts: Accounts;
  store: SsoStore;
  directory: ScimDirectory;
  management: Pick<Management, 'endWorkspaceAccess' | 'clearTakenOver'>;
  endSessions: (userId: string) => Promise<number>;
}

const label = (c: ScimCaller) => `scim:${c.tokenPrefix}`;

export function scimProvisioning(deps: ProvisioningDeps) {
  const { accounts, store, directory } = deps;

  async function owner(workspace: string): Promise<string | null> {
    return (await accounts.workspaces.get(workspace))?.owner ?? null;
  }

  /** True when the address is at a domain `workspace` proved (the company owns the identity). */
  async function owns(workspace: string, email: string): Promise<boolean> {
    return (await store.ownerOf(email.slice(email.lastIndexOf('@') + 1))) === workspace;
  }

  /** The role the user's groups give them (the SSO policy's rows), or the policy's default. */
  async function roleOf(workspace: string, user: ScimUser): Promise<Role> {
    const settings = (await store.settings(workspace)) ?? { defaultRole: 'VIEWER' as const, groupRoles: [] };
    const groups = (await directory.groups.list(workspace)).filter((g) => g.members.includes(user.id)).map((g) => g.displayName);
    return roleFor(settings, groups);
  }

  return {
    /**
     * The svc account of a new user's address: made when there is none; an unproven one taken over
     * (its password removed, its workspace's settings cleared, its sessions ended).
     */
    async accountFor(workspace: string, email: string): Promise<User> {
      if (!email.includes('@')) throw new ScimError('invalidValue', 'userName (or the primary email) is an email address.');
      if (!(await owns(workspace, email)))
        throw new ScimError('invalidValue', `${email.slice(email.lastIndexOf('@') + 1)} is not a domain this workspace proved.`);
      const found = await accounts.users.findByEmail(email);
      if (found) {
        if (found.emailVerifiedAt !== null) return found;
        await accounts.users.clearPassword(found.id);
        await deps.management.clearTakenOver(found);
        await deps.endSessions(found.id);
        await accounts.users.markEmailVerified(found.id);
        return found;
      }
      try {
        return await accounts.users.create({ email, emailVerified: true });
      } catch (err) {
        if (err instanceof AccountError && err.code === 'conflict')
          throw new ScimError('uniqueness', `The account of ${email} is being made by another request; try again.`);
        throw err;
      }
    },

    /** Refuses to manage the workspace's owner. */
    async notOwner(workspace: string, userId: string): Promise<void> {
      if ((await owner(workspace)) === userId) throw new ScimError('forbidden', "The workspace's owner is not managed by its directory.");
    },

    /**
     * Makes svc match the record: an active user gets their role on every project of the
     * workspace; an inactive one loses all access (endWorkspaceAccess), audited as `scim.user_deprovisioned`.
     */
    async apply(caller: ScimCaller, user: ScimUser): Promise<void> {
      const { workspace } = caller;
      if ((await owner(workspace)) === user.userId) return;
      if (!user.active) {
        await deps.management.endWorkspaceAccess(workspace, user.userId, await owns(workspace, user.email), {
          label: label(caller),
          source: caller.source,
          action: 'scim.user_deprovisioned',
        });
        return;
      }
      const role = await roleOf(workspace, user);
      for (const project of await accounts.workspaces.projectsOf(workspace)) await accounts.workspaces.setRole(project, user.userId, role);
    },

    /** One audit entry of a SCIM change. */
    async audit(
      caller: ScimCaller,
      action: 'scim.user_provisioned' | 'scim.user_changed' | 'scim.group_changed',
      target: string,
      detail: Record<string, string>,
    ) {
      await accounts.audit.record({
        workspace: caller.workspace,
        actor: label(caller),
        action,
        target,
        source: caller.source,
        requestId: crypto.randomUUID(),
        detail,
      });
    },
  };
}

export type ScimProvisioning = ReturnType<typeof scimProvisioning>;
