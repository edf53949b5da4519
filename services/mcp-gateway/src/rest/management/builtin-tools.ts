/** The routes of svc's own tools' settings in a project (docs/approvals.md "The rule"). */
import type { BuiltinToolView } from '@svc/management';
import { approvalSettable } from '@svc/policy';
import { handle, type ManagementRoute } from './handle.ts';

const answer = (v: BuiltinToolView) => ({
  name: v.policy.name,
  summary: v.policy.summary,
  level: v.policy.level,
  approval: v.approval,
  approval_settable: approvalSettable(v.policy),
  set_by: v.setting?.setBy ?? null,
  set_at: v.setting ? new Date(v.setting.setAt).toISOString() : null,
});

export const BUILTIN_TOOL_ROUTES: readonly ManagementRoute[] = [
  handle('listBuiltinTools', async (m, a, { params }) => ({ body: { tools: (await m.listBuiltinTools(a, params.project)).map(answer) } })),
  handle('setBuiltinTool', async (m, a, { params, body }) => ({
    body: answer(await m.setBuiltinTool(a, params.project, params.tool, body.approval)),
  })),
];
