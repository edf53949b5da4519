/**
 * Who pays for a request and which plan gates its tools (docs/contract.md "Who pays for a
 * request"): the project's workspace, or a person's own when they have no role on the project.
 */
import type { Accounts, Project, User } from '@svc/accounts';
import type { Role } from '@svc/policy';

export function payerContexts(accounts: Accounts) {
  async function workspaceContext(slug: string) {
    const ws = await accounts.workspaces.get(slug);
    return { workspace: slug, plan: ws?.plan ?? 'FREE', agents: ws?.agents ?? false } as const;
  }

  /** The project's workspace pays, and its plan gates the tools. */
  async function projectContext(project: Project) {
    const ctx = await workspaceContext(project.workspace);
    return { ...ctx, payer: { workspace: ctx.workspace, plan: ctx.plan } };
  }

  /** A person's request on a project: the project's workspace pays while they have a role there; with role NONE their own does. */
  async function personContext(project: Project, user: User, role: Role) {
    const ctx = await projectContext(project);
    if (role !== 'NONE' || user.workspace === ctx.workspace) return ctx;
    const own = await workspaceContext(user.workspace);
    return { ...ctx, payer: { workspace: own.workspace, plan: own.plan } };
  }

  return { workspaceContext, projectContext, personContext };
}
