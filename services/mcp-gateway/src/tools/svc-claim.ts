/**
 * svc_claim: an exclusive, expiring lease on a resource of a swarm: claim, renew, release or
 * status. The holder is the caller's credential plus `agent` when given, else its session, so two
 * agents sharing one key stay distinct if they name themselves (or use their own MCP sessions).
 */
import { findSwarm, lease, type LeaseResult } from '@svc/knowledge';
import type { KnowledgeToolDeps } from './svc-knowledge-shared.ts';
import { projectOf } from './svc-knowledge-shared.ts';
import type { ToolDefinition, ToolResult } from './types.ts';
import { defineTool, ToolFailure } from './types.ts';

const SAY: Record<LeaseResult['outcome'], (r: string, l: LeaseResult['lease']) => string> = {
  acquired: (r, l) => `Claimed "${r}" until ${l?.expiresAt}. Renew before then with action "renew", or release it when done.`,
  renewed: (r, l) => `Lease on "${r}" renewed until ${l?.expiresAt}.`,
  released: (r) => `Released "${r}"; another agent may claim it now.`,
  held: (r, l) => `"${r}" is held by ${l?.label} until ${l?.expiresAt}. Work on something else or claim again after that time.`,
  not_held: (r) => `You hold no lease on "${r}" (it expired or was never claimed); claim it with action "claim".`,
  free: (r) => `"${r}" is free.`,
};

export function svcClaim(deps: KnowledgeToolDeps): ToolDefinition {
  const { knowledge } = deps;
  return defineTool({
    name: 'svc_claim',
    title: 'Claim a resource',
    description:
      'Takes an exclusive, expiring lease on a resource (a file, a task, any name) within a swarm, so only one agent works on it. ' +
      'If another agent holds it you are told who and until when. action renew extends your lease, release gives it up, status only looks.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['swarm', 'resource'],
      properties: {
        swarm: { type: 'string', minLength: 1, maxLength: 100, description: 'Swarm id or name (from svc_swarm_create).' },
        resource: { type: 'string', minLength: 1, maxLength: 512, description: 'What to lease, e.g. a file path or task id.' },
        action: {
          type: 'string',
          enum: ['claim', 'renew', 'release', 'status'],
          default: 'claim',
          description: 'claim (or renew if you hold it), renew, release or status.',
        },
        lease_seconds: {
          type: 'integer',
          minimum: 1,
          maximum: 86_400,
          default: 300,
          description: 'Lease length for claim and renew (1-86400 seconds).',
        },
        agent: {
          type: 'string',
          minLength: 1,
          maxLength: 128,
          description: 'Your agent name; agents sharing one credential must each give their own.',
        },
      },
    },
    annotations: { readOnlyHint: false, idempotentHint: false },
    async call(args, caller): Promise<ToolResult> {
      const project = projectOf(caller);
      const swarm = await findSwarm(knowledge.redis, project, args.swarm);
      if (!swarm) throw new ToolFailure(`No swarm "${args.swarm}" in this project; create it with svc_swarm_create.`);
      const who = args.agent ?? caller.sessionId;
      const r = await lease(knowledge.redis, project, {
        swarmId: swarm.id,
        resource: args.resource,
        action: args.action,
        holder: `${caller.type}:${caller.id}/${who}`,
        label: args.agent ? `${args.agent} (${caller.label})` : caller.label,
        leaseSeconds: args.lease_seconds,
      });
      const structured = {
        swarm: swarm.id,
        resource: args.resource,
        outcome: r.outcome,
        holder: r.lease ? r.lease.label : null,
        expires_at: r.lease?.expiresAt ?? null,
      };
      // A lease held by another, or one no longer held, is for the model to act on (ToolResult's isError).
      const isError = r.outcome === 'held' && args.action !== 'status' ? true : r.outcome === 'not_held';
      return {
        content: [{ type: 'text', text: SAY[r.outcome](args.resource, r.lease) }],
        structuredContent: structured,
        ...(isError ? { isError } : {}),
      };
    },
  });
}
