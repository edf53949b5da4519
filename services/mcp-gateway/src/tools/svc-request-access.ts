/** svc_request_access (docs/contract.md "Access requests"): ask a project's admins for a level. */
import { AccountError, MAX_REASON_LENGTH } from '@svc/accounts';
import { roleAtLeast } from '@svc/policy';
import type { ToolDefinition, ToolDeps } from './types.ts';
import { defineTool, text, ToolFailure } from './types.ts';

export function svcRequestAccess(deps: Pick<ToolDeps, 'accounts' | 'onAccessRequested'>): ToolDefinition {
  return defineTool({
    name: 'svc_request_access',
    title: 'Request access',
    description:
      "Ask the project's admins for an access level (VIEWER, EDITOR or ADMIN) on this project, with a reason. Use it when a tool is refused because your level is too low, or when you have no role on the project.",
    inputSchema: {
      type: 'object',
      properties: {
        requested_level: { type: 'string', enum: ['VIEWER', 'EDITOR', 'ADMIN'], description: 'The access level you need' },
        reason: { type: 'string', minLength: 1, maxLength: MAX_REASON_LENGTH, description: 'Why you need it (shown to the admins)' },
      },
      required: ['requested_level', 'reason'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false },
    async call(args, caller) {
      if (!caller.project) throw new ToolFailure('svc_request_access works on a project endpoint (/mcp/<project_slug>)');
      if (roleAtLeast(caller.role, args.requested_level)) {
        return text(`You already have ${caller.role} on project ${caller.project}; no request was created.`, {
          status: 'unchanged',
          role: caller.role,
        });
      }
      const req = await deps.accounts.accessRequests
        .create({
          project: caller.project,
          requester: { type: caller.type, id: caller.id, label: caller.label },
          requestedLevel: args.requested_level,
          reason: args.reason.trim(),
        })
        .catch((err: unknown) => {
          // Too many requests await a decision (docs/management.md "Collection limits").
          if (err instanceof AccountError && err.code === 'limit') throw new ToolFailure(err.message);
          throw err;
        });
      await deps.onAccessRequested?.(req);
      return text(
        `Access request ${req.id} for ${req.requested_level} on project ${req.project} is pending. The project's admins are told by email and decide it in the dashboard or with svc requests; your current level is ${caller.role}.`,
        { id: req.id, project: req.project, requested_level: req.requested_level, status: req.status, current_level: caller.role },
      );
    },
  });
}
