/** svc_recall: the project's memories that match a query, optionally of one type. */
import { MEMORY_TYPES, recall } from '@svc/knowledge';
import type { KnowledgeToolDeps } from './svc-knowledge-shared.ts';
import { projectOf, QUERY, round } from './svc-knowledge-shared.ts';
import type { ToolDefinition } from './types.ts';
import { defineTool, text } from './types.ts';

export function svcRecall(deps: KnowledgeToolDeps): ToolDefinition {
  const { knowledge } = deps;
  return defineTool({
    name: 'svc_recall',
    title: 'Recall',
    description: "Finds the project's memories (stored with svc_remember) that match a query, best match first; optionally only one type.",
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['query'],
      properties: {
        query: QUERY,
        type: { type: 'string', enum: [...MEMORY_TYPES], description: 'Only memories of this type.' },
        limit: { type: 'integer', minimum: 1, maximum: 50, default: 10, description: 'How many memories to return (1-50).' },
      },
    },
    annotations: { readOnlyHint: true, idempotentHint: true },
    async call(args, caller) {
      const project = projectOf(caller);
      const found = await recall(knowledge.redis, project, { query: args.query, type: args.type, limit: args.limit }, caller.workspace);
      const memories = found.map(({ memory: m, score }) => ({
        id: m.id,
        type: m.type,
        text: m.text,
        created_by: m.createdBy,
        created_at: m.createdAt,
        expires_at: m.expiresAt,
        score: round(score),
      }));
      if (found.length === 0)
        return text(`No memory matches "${args.query}"${args.type ? ` among type ${args.type}` : ''}.`, { query: args.query, memories });
      return text(found.map(({ memory: m }, i) => `[${i + 1}] (${m.type}, ${m.createdAt.slice(0, 10)}) ${m.text}`).join('\n'), {
        query: args.query,
        memories,
      });
    },
  });
}
