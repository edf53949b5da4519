/**
 * Ending a person's access in a workspace (docs/auth-service.md "SCIM provisioning",
 * "Deprovisioning"): what the company's directory asks when it deletes or deactivates a person.
 * One function, so every caller (SCIM, the provider's back-channel logout) ends the same things:
 * - their role on each of the workspace's projects (the gateway's caches drop them on every
 *   replica through the invalidation channel, docs/redis-schema.md "Invalidation"), and the OAuth
 *   grants that reach those projects;
 * - when the workspace vouches for the person's identity (their address is at a domain it proved:
 *   the company owns the account, docs/auth-service.md "Single sign-on"), everything the person
 *   signed in to obtain: every session (browser and provider), personal key and OAuth grant. A
 *   workspace never ends more than its own projects' access for an address it does not own, so a
 *   SCIM token cannot sign a stranger out of svc.
 * The workspace's owner is never deprovisioned by it (the caller refuses).
 */
import { randomUUID } from 'node:crypto';
import { endPersonalCredentials, type AuditAction } from '@svc/accounts';
import type { ManagementContext } from './context.ts';

/** What was ended, by kind. */
export interface AccessEndReport {
  memberships: number;
  grants: number;
  personalKeys: number;
  sessions: number;
}

/** Who ended it, as the audit log names them. */
export interface AccessEnder {
  /** The actor's label: `scim:<token prefix>`, `sso:<issuer>`. */
  label: string;
  source: string;
  requestId?: string;
  action: AuditAction;
}

/** The one way a person's access in a workspace ends (access-end.ts). */
export interface AccessEndInternals {
  /**
   * Ends the person's access in `workspace`: roles and the grants reaching its projects; and,
   * when `identityOwned` (the address is at a domain the workspace proved), every session,
   * personal key and OAuth grant they have. Audited as `by.action`.
   */
  endWorkspaceAccess(workspace: string, userId: string, identityOwned: boolean, by: AccessEnder): Promise<AccessEndReport>;
}

export function accessEndOperations(ctx: ManagementContext): AccessEndInternals {
  const { accounts, deps } = ctx;
  return {
    async endWorkspaceAccess(workspace, userId, identityOwned, by) {
      const report: AccessEndReport = { memberships: 0, grants: 0, personalKeys: 0, sessions: 0 };
      for (const slug of await accounts.workspaces.projectsOf(workspace)) {
        const project = await accounts.workspaces.getProject(slug);
        if (project && (await accounts.workspaces.roleOf(userId, project)) !== 'NONE') {
          await accounts.workspaces.setRole(slug, userId, 'NONE');
          report.memberships++;
        }
        report.grants += await accounts.oauthGrants.revokeForProject(userId, slug);
      }
      if (identityOwned) {
        // Sessions first: a browser still signed in could otherwise approve a new grant meanwhile.
        report.sessions = deps.endSessions ? await deps.endSessions(userId) : 0;
        const ended = await endPersonalCredentials(accounts, userId);
        report.personalKeys = ended.keys;
        report.grants += ended.apps;
      }
      const user = await accounts.users.get(userId);
      await accounts.audit.record({
        workspace,
        actor: by.label,
        action: by.action,
        target: `user:${user?.email ?? userId}`,
        source: by.source,
        requestId: by.requestId ?? randomUUID(),
        detail: {
          memberships_ended: String(report.memberships),
          oauth_grants_revoked: String(report.grants),
          personal_keys_revoked: String(report.personalKeys),
          sessions_ended: String(report.sessions),
          scope: identityOwned ? 'account' : 'workspace',
        },
      });
      return report;
    },
  };
}
