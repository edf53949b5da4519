/**
 * The clean-up when an account whose address was never proven is taken over by the address's real
 * owner (an SSO sign-in that proves it: docs/security.md "Unproven addresses"). Whatever the
 * account made before may have been a squatter's, so nothing of it survives:
 * - every workspace-level setting of its own workspace, one remover per kind the operations
 *   declare (contract/policy.ts WORKSPACE_SETTINGS; the record below is exhaustive by its type, so
 *   a kind declared later cannot be forgotten here);
 * - its credentials: second factors, personal keys, its workspace's project keys and service accounts.
 * The password goes with them (the caller clears it).
 */
import type { User } from '@svc/accounts';
import type { WorkspaceSetting } from './contract/policy.ts';
import type { ManagementContext } from './context.ts';

/** How many of each were removed. */
export type TakeoverReport = Record<WorkspaceSetting | 'credentials', number>;

/** What an SSO sign-in that proves an address for the first time clears. */
export interface TakeoverInternals {
  /**
   * After an SSO sign-in proved the address of an account that never had it proven: removes every
   * workspace-level setting and credential the account made (takeover.ts, docs/security.md
   * "Unproven addresses").
   */
  clearTakenOver(user: User): Promise<TakeoverReport>;
}

export function takeoverOperations(ctx: ManagementContext): TakeoverInternals {
  const { accounts, deps } = ctx;

  const REMOVERS: Record<WorkspaceSetting, (workspace: string) => Promise<number>> = {
    sso: async (workspace) => (deps.sso ? deps.sso.clear(workspace) : 0),
    webhook: async (workspace) => {
      if (!deps.webhooks) return 0;
      let n = 0;
      for (const endpoint of await deps.webhooks.list(workspace)) if (await deps.webhooks.remove(workspace, endpoint.id)) n++;
      return n;
    },
    'trusted-issuer': async (workspace) => {
      let n = 0;
      for (const issuer of await accounts.trustedIssuers.list(workspace))
        if (await accounts.trustedIssuers.remove(workspace, issuer.id)) n++;
      return n;
    },
    'workload-issuer': async (workspace) => {
      let n = 0;
      for (const issuer of await accounts.workloadIssuers.list(workspace))
        if (await accounts.workloadIssuers.remove(workspace, issuer.id)) n++;
      return n;
    },
    'client-keys': async (workspace) => {
      let n = 0;
      for (const bot of await accounts.bots.listForWorkspace(workspace)) if (await accounts.serviceAccountClients.removeKeys(bot.id)) n++;
      return n;
    },
    invitation: async (workspace) => {
      let n = 0;
      for (const project of await accounts.workspaces.projectsOf(workspace))
        for (const invitation of await accounts.invitations.list(project))
          if (await accounts.invitations.cancel(project, invitation.id)) n++;
      return n;
    },
    scim: async (workspace) =>
      deps.scim
        ? (await deps.scim.tokens.revokeAll(workspace)) +
          (await deps.scim.directory.users.clear(workspace)) +
          (await deps.scim.directory.groups.clear(workspace))
        : 0,
    upstream: async (workspace) => {
      if (!deps.upstreams) return 0;
      let n = 0;
      for (const project of await accounts.workspaces.projectsOf(workspace)) {
        const { upstreams } = await deps.upstreams.read(project);
        if (upstreams.length > 0 && (await deps.upstreams.removeAll(project))) n += upstreams.length;
      }
      return n;
    },
  };

  /** The account's own credentials, and those of its workspace. */
  async function removeCredentials(user: User): Promise<number> {
    await accounts.factors.resetAll(user.id);
    const projects = await accounts.workspaces.projectsOf(user.workspace);
    const keys = [
      ...(await accounts.keys.listForUser(user.id)),
      ...(await Promise.all(projects.map((p) => accounts.keys.listForProject(p)))).flat(),
    ];
    let n = 0;
    for (const key of keys)
      if (!key.revoked) {
        await accounts.keys.revoke(key.id);
        n++;
      }
    for (const bot of await accounts.bots.listForWorkspace(user.workspace))
      if (!bot.revoked) {
        await accounts.bots.revoke(bot.id);
        n++;
      }
    return n;
  }

  return {
    /** Removes what the unproven account `user` made: its workspace's settings (every kind), then its credentials. */
    async clearTakenOver(user: User): Promise<TakeoverReport> {
      const report = { credentials: 0 } as TakeoverReport;
      for (const kind of Object.keys(REMOVERS) as WorkspaceSetting[]) report[kind] = await REMOVERS[kind](user.workspace);
      report.credentials = await removeCredentials(user);
      return report;
    },
  };
}
