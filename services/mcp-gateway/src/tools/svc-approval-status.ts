/** svc_approval_status (docs/approvals.md): follow a call held for an admin's approval, and fetch its answer. */
import type { ToolCaller, ToolDefinition, ToolResult, ToolsBeside } from './types.ts';
import { defineTool } from './types.ts';

/** The collector of methods/approvals.ts, given by the gateway once its tools are registered. */
export type CollectApproval = (id: string, caller: ToolCaller, beside: ToolsBeside | undefined) => Promise<ToolResult>;

export function svcApprovalStatus(collect: CollectApproval): ToolDefinition {
  return defineTool({
    name: 'svc_approval_status',
    title: 'Approval status',
    description:
      "Follow a call that waits for an admin's approval (a refusal with gate `approval` names its approval_id). Answers pending, denied or expired; once approved, the call runs here, once, and its answer is returned now and on every later call.",
    inputSchema: {
      type: 'object',
      properties: {
        approval_id: { type: 'string', minLength: 1, maxLength: 100, description: 'The approval_id the held call was answered with' },
      },
      required: ['approval_id'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false },
    // The approved call may be one of the project's upstream tools.
    readsToolSet: true,
    selfTimed: true,
    call: (args, caller, beside) => collect(args.approval_id, caller, beside),
  });
}
