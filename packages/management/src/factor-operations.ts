/**
 * The second-factor policy of a workspace and the owner's reset of a member's factors
 * (docs/management.md "Second factor"), each audited. A reset is how a person who lost both their
 * authenticator and their recovery codes gets back in (docs/auth-service.md "Second factor"); it is
 * the workspace owner's, for members of the workspace's projects, never for the owner themselves
 * (an owner's own reset is the operator's: `svc-admin user reset-factors`).
 */
import type { ManagementContext } from './context.ts';
import type { AnswerOf } from './contract/define.ts';
import type * as contract from './contract/factors.ts';
import { ManagementError, type Actor } from './types.ts';

/** A workspace's second-factor policy and the owner's reset of a member's factors. */
export interface FactorOperations {
  /** Whether the workspace requires a second factor of its members (docs/management.md "Second factor"). */
  factorPolicy(actor: Actor, workspace: string): Promise<AnswerOf<typeof contract.factorPolicy>>;
  /** Requires a second factor of the workspace's members, or not; audited (`factor.policy_changed`). */
  setFactorPolicy(actor: Actor, workspace: string, input: { required: boolean }): Promise<AnswerOf<typeof contract.setFactorPolicy>>;
  /** The owner's reset of a member's second factors, audited (`factor.reset`). */
  resetFactors(actor: Actor, workspace: string, userId: string): Promise<AnswerOf<typeof contract.resetFactors>>;
}

export function factorOperations(ctx: ManagementContext): FactorOperations {
  const { accounts, note, ownerOf } = ctx;
  return {
    async factorPolicy(actor, workspace) {
      await ownerOf(actor, workspace, 'see the second-factor policy');
      return { required: await accounts.factors.required(workspace) };
    },
    async setFactorPolicy(actor, workspace, { required }) {
      await ownerOf(actor, workspace, 'change the second-factor policy');
      await accounts.factors.setRequired(workspace, required);
      await note(actor, workspace, 'factor.policy_changed', `workspace:${workspace}`, { required: String(required) });
      return { required };
    },
    async resetFactors(actor, workspace, userId) {
      const ws = await ownerOf(actor, workspace, "reset a member's second factors");
      if (userId === ws.owner)
        throw new ManagementError(403, "An owner's own second factors are reset by the operator (svc-admin user reset-factors).");
      const user = await accounts.users.get(userId);
      const member = user && (await accounts.workspaces.accessibleProjects(userId)).some((p) => p.project.workspace === workspace);
      if (!user || !member) throw new ManagementError(404, `There is no member ${userId} in workspace ${workspace}.`);
      await accounts.factors.resetAll(userId);
      await note(actor, workspace, 'factor.reset', `user:${user.email}`);
      return { user: userId, reset: true };
    },
  };
}
