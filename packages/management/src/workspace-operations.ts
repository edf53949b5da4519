/**
 * A workspace's projects, service accounts, usage and audit log (docs/management.md, docs/audit.md):
 * the owner's, and the projects each actor reaches. The service accounts are in
 * service-account-operations.ts, the usage in usage-operations.ts.
 */
import { AUDIT_ACTIONS, AccountError, nameProblem, slugStem } from '@svc/accounts';
import { parseAuditFilter, parseAuditQuery, type AuditQueryInput } from './audit-query.ts';
import type { ManagementContext } from './context.ts';
import type { AnswerOf } from './contract/define.ts';
import type * as contract from './contract/workspaces.ts';
import { sweepKeyExpiries } from './expiry.ts';
import { serviceAccountOperations, type ServiceAccountOperations } from './service-account-operations.ts';
import { ManagementError, type Actor, type AuditRow, type ProjectRow } from './types.ts';
import { usageOperations, type UsageOperations } from './usage-operations.ts';

/** A workspace: a new project, its audit log (docs/management.md). */
export interface WorkspaceOperations {
  /** A new project in the workspace, its slug made from the name (trimmed). */
  createProject(actor: Actor, workspace: string, input: { name: string }): Promise<AnswerOf<typeof contract.createProject>>;
  /** A page of the audit log, filtered by action, person and time range; a parameter that is not valid is a 400 naming it. */
  audit(
    actor: Actor,
    workspace: string,
    page: AuditQueryInput,
  ): Promise<{ entries: AuditRow[]; next: string | null; actions: readonly string[] }>;
}

/** What the doors ask of workspaces besides the operations: the menus, the export, the sweep. */
export interface WorkspaceInternals {
  projectsOf(actor: Actor): Promise<ProjectRow[]>;
  /** Workspaces the actor may create projects in. */
  workspacesOf(actor: Actor): Promise<string[]>;
  /**
   * audit's stream (rules.ts VARIANTS): every kept entry the filter lets through, as chunks of
   * JSON lines, read as they are taken (streamExport writes them).
   */
  auditExport(actor: Actor, workspace: string, filter?: AuditQueryInput): Promise<AsyncIterable<string>>;
  /** One key-expiry sweep: warnings mailed, `key.expired` recorded (docs/management.md "Expiry"). */
  sweepKeyExpiries(): Promise<{ warned: number; expired: number }>;
}

/** The operations of this group, on the shared context (each is described on WorkspaceOperations). */
export function workspaceOperations(
  ctx: ManagementContext,
): WorkspaceOperations & WorkspaceInternals & ServiceAccountOperations & UsageOperations {
  const { accounts, deps, now, notices, note, full, ownerOf } = ctx;
  return {
    ...serviceAccountOperations(ctx),
    ...usageOperations(ctx),

    async projectsOf(actor) {
      if (actor.kind === 'project_key') {
        const p = await accounts.workspaces.getProject(actor.project);
        return p ? [{ slug: p.slug, name: p.name, workspace: p.workspace, role: actor.level }] : [];
      }
      if (actor.kind === 'operator') return [];
      return (await accounts.workspaces.accessibleProjects(actor.userId)).map((a) => ({
        slug: a.project.slug,
        name: a.project.name,
        workspace: a.project.workspace,
        role: a.role,
      }));
    },

    async workspacesOf(actor) {
      return actor.kind === 'person' ? accounts.workspaces.ownedBy(actor.userId) : [];
    },

    async createProject(actor, workspace, input) {
      const name = input.name.trim();
      // docs/management.md "Names": no control, invisible or direction-changing characters.
      const projectNameProblem = nameProblem('project', name, 60);
      if (projectNameProblem) throw new ManagementError(400, projectNameProblem, 'name');
      await ownerOf(actor, workspace, 'create projects there');
      const stem = slugStem(name);
      if (stem.length < 2) throw new ManagementError(400, 'The name needs at least two letters or digits.', 'name');
      const project = await accounts.workspaces.createProjectWithFreeSlug({ stem, workspace, name }).catch((err: unknown) => {
        if (err instanceof AccountError && err.code === 'conflict')
          throw new ManagementError(409, 'No free address for a project of that name; choose another name.', 'name');
        return full(err);
      });
      await note(actor, workspace, 'project.created', `project:${project.slug}`);
      return { slug: project.slug };
    },

    async audit(actor, workspace, page) {
      await ownerOf(actor, workspace, 'read the audit log');
      const query = parseAuditQuery(page);
      const r = await accounts.audit.page(workspace, query);
      return {
        entries: r.entries.map((e) => ({
          id: e.id,
          at: e.at,
          actor: e.actor,
          action: e.action,
          target: e.target,
          source: e.source,
          requestId: e.requestId,
          principal: e.principal,
          agent: e.agent,
          chain: e.chain,
        })),
        next: r.next,
        actions: AUDIT_ACTIONS,
      };
    },

    async auditExport(actor, workspace, filter = {}) {
      await ownerOf(actor, workspace, 'export the audit log');
      return accounts.audit.exportChunks(workspace, parseAuditFilter(filter));
    },

    sweepKeyExpiries() {
      return sweepKeyExpiries({ accounts, redis: deps.redis, notices, now });
    },
  };
}
