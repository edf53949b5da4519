/** Every tool the gateway has a handler for; a tool of the policy table without one is not listed. */
import { knowledgeTools } from './knowledge.ts';
import { svcApprovalStatus } from './svc-approval-status.ts';
import { svcHelp } from './svc-help.ts';
import { svcRequestAccess } from './svc-request-access.ts';
import type { ToolDefinition, ToolDeps } from './types.ts';

export function createTools(deps: ToolDeps): ToolDefinition[] {
  const tools: ToolDefinition[] = [svcRequestAccess(deps), ...knowledgeTools(deps)];
  if (deps.collectApproval) tools.push(svcApprovalStatus(deps.collectApproval));
  // svc_help describes the final set, itself included.
  tools.unshift(svcHelp(() => tools));
  return tools;
}
