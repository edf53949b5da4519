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
        .create(
          {
            project: caller.project,
            requester: { type: caller.type, id: caller.id, label: caller.label },
            requestedLevel: args.requested_level,
            reason: args.reason,
          },
          // The audit entry names the agent: the OAuth client, or the API key (docs/audit.md "Who and through what").
          { ...caller.origin, agent: { clientId: caller.clientId } },
        )
        .catch((err: unknown) => {
          // Too many requests await a decision (docs/management.md "Collection limits"), or a
          // denial is too recent (docs/management.md "Access request lifecycle").
          if (err instanceof AccountError && (err.code === 'limit' || err.code === 'cooldown')) throw new ToolFailure(err.message);
          throw err;
        });
      const { mailed } = (await deps.onAccessRequested?.(req)) ?? { mailed: false };
      // Say only what happened (docs/management.md "Access request lifecycle"): mail is off on
      // some servers, and a repeat within the hour updates the request without a new mail.
      const told = mailed
        ? "The project's admins were emailed."
        : req.updated
          ? "Your pending request was updated; the project's admins were not emailed again (at most one email an hour)."
          : "The project's admins were not emailed (this server sends no email); they see the request in the dashboard and with svc requests list.";
      const follow =
        caller.type === 'user'
          ? 'Follow it with svc requests mine, on your account page, or by the email a decision sends.'
          : 'Call svc_request_access again to see whether it was decided.';
      return text(
        `Access request ${req.id} for ${req.requested_level} on project ${req.project} is pending. ${told} ${follow} Your current level is ${caller.role}.`,
        {
          id: req.id,
          project: req.project,
          requested_level: req.requested_level,
          status: req.status,
          current_level: caller.role,
          admins_emailed: mailed,
          updated: req.updated,
        },
      );
    },
  });
}
