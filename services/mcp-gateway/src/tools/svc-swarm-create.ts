/** svc_swarm_create: a named swarm of agents in the project, whose resources svc_claim leases. Same name: the existing swarm. */
import { createSwarm } from '@svc/knowledge';
import type { KnowledgeToolDeps } from './svc-knowledge-shared.ts';
import { projectOf } from './svc-knowledge-shared.ts';
import type { ToolDefinition } from './types.ts';
import { defineTool, text, ToolFailure } from './types.ts';

export function svcSwarmCreate(deps: KnowledgeToolDeps): ToolDefinition {
  const { knowledge } = deps;
  return defineTool({
    name: 'svc_swarm_create',
    title: 'Create a swarm',
    description:
      'Creates a swarm: a named group of agents that coordinate through exclusive leases on resources (svc_claim). ' +
      'Creating a name that exists returns that swarm unchanged, so every agent can call it at start-up.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: {
        name: {
          type: 'string',
          minLength: 1,
          maxLength: 100,
          pattern: '^[A-Za-z0-9][A-Za-z0-9 ._-]*$',
          description: 'Swarm name, unique in the project (letters, digits, space, ".", "_", "-").',
        },
        description: { type: 'string', maxLength: 2000, description: 'What the swarm works on.' },
      },
    },
    annotations: { readOnlyHint: false, idempotentHint: true },
    async call(args, caller) {
      const project = projectOf(caller);
      const r = await createSwarm(knowledge.redis, project, { name: args.name, description: args.description, createdBy: caller.label });
      if ('full' in r) throw new ToolFailure('The project holds the maximum number of swarms (1,000).');
      const s = r.swarm;
      return text(
        `${r.created ? 'Created' : 'Exists already:'} swarm "${s.name}" (${s.id}). Claim resources with svc_claim using swarm "${s.id}".`,
        {
          id: s.id,
          name: s.name,
          description: s.description,
          created: r.created,
          created_by: s.createdBy,
          created_at: s.createdAt,
        },
      );
    },
  });
}
