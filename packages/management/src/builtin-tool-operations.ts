/**
 * svc's own tools in a project (docs/approvals.md "The rule"): their rows are svc's (TOOL_POLICIES);
 * a project's admins set whether calls of one wait for an approval. The setting is kept beside the
 * project's upstream tool rows (one hash a gateway reads in one command, @svc/upstreams), so a
 * gateway's tool set carries it at no extra cost and every change reaches every gateway at once.
 * Without that service every operation answers 404.
 */
import { approvalSettable, TOOL_POLICIES, type ApprovalRule, type ToolPolicy } from '@svc/policy';
import type { BuiltinToolSetting, Upstreams } from '@svc/upstreams';
import type { ManagementContext } from './context.ts';
import type * as contract from './contract/builtin-tools.ts';
import type { AnswerOf } from './contract/define.ts';
import { ManagementError, type Actor } from './types.ts';

/** One built-in tool in one project, with the approval rule that applies there, as the API answers it. */
export type BuiltinToolView = AnswerOf<typeof contract.setBuiltinTool>;

/** svc's own tools in a project; each answers its declared answer, as the REST API sends it. */
export interface BuiltinToolOperations {
  listBuiltinTools(actor: Actor, project: string): Promise<AnswerOf<typeof contract.listBuiltinTools>>;
  /** `none` goes back to the tool's own row (every built-in row is `none`), so nothing is kept for it. */
  setBuiltinTool(actor: Actor, project: string, tool: string, input: { approval: ApprovalRule }): Promise<BuiltinToolView>;
}

/** The tools of a project's endpoint (the team endpoint's own tools have no project to set them in). */
const PROJECT_TOOLS = TOOL_POLICIES.filter((p) => p.endpoints.includes('project'));

const viewOf = (policy: ToolPolicy, settings: readonly BuiltinToolSetting[]): BuiltinToolView => {
  const setting = settings.find((s) => s.tool === policy.name) ?? null;
  return {
    name: policy.name,
    summary: policy.summary,
    level: policy.level,
    approval: setting?.approval ?? policy.approval ?? 'none',
    approval_settable: approvalSettable(policy),
    set_by: setting?.setBy ?? null,
    set_at: setting ? new Date(setting.setAt).toISOString() : null,
  };
};

export function builtinToolOperations(ctx: ManagementContext, service: Upstreams | undefined): BuiltinToolOperations {
  const serviceFor = async (actor: Actor, project: string, what: string) => {
    const p = await ctx.adminOf(actor, project, what);
    if (!service) throw new ManagementError(404, "Project settings of svc's own tools are not offered here.");
    return { s: service, workspace: p.project.workspace };
  };

  return {
    async listBuiltinTools(actor, project) {
      const { s } = await serviceFor(actor, project, "see svc's own tools' settings");
      const { builtins } = await s.read(project);
      return { tools: PROJECT_TOOLS.map((policy) => viewOf(policy, builtins)) };
    },

    async setBuiltinTool(actor, project, tool, { approval }) {
      const { s, workspace } = await serviceFor(actor, project, "change svc's own tools' settings");
      const policy = PROJECT_TOOLS.find((p) => p.name === tool);
      if (!policy)
        throw new ManagementError(404, `svc has no tool named ${tool} on a project's endpoint; see GET .../builtin-tools.`, 'tool');
      if (!approvalSettable(policy))
        throw new ManagementError(
          400,
          `${tool} is how any caller finds their way (help, asking for access, following an approval); its calls cannot wait for an approval.`,
          'tool',
        );
      const setting = approval === (policy.approval ?? 'none') ? null : { tool, approval, setAt: ctx.now(), setBy: actor.label };
      await s.setBuiltin(project, tool, setting);
      await ctx.note(actor, workspace, 'tool.approval_changed', `tool:${tool}`, { project, approval });
      return viewOf(policy, setting ? [setting] : []);
    },
  };
}
