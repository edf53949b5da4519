/** svc_remember: store a typed memory of the project (fact, decision, learning, preference, note), optionally expiring. */
import { MEMORY_LIMITS, MEMORY_TYPES, remember } from '@svc/knowledge';
import type { KnowledgeToolDeps } from './svc-knowledge-shared.ts';
import { projectOf, TTL } from './svc-knowledge-shared.ts';
import type { ToolDefinition } from './types.ts';
import { defineTool, text, ToolFailure } from './types.ts';

export function svcRemember(deps: KnowledgeToolDeps): ToolDefinition {
  const { knowledge } = deps;
  return defineTool({
    name: 'svc_remember',
    title: 'Remember',
    description:
      'Stores a memory for everyone working on this project, with a type (fact, decision, learning, preference, note); svc_recall finds it again.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['text'],
      properties: {
        text: { type: 'string', minLength: 1, maxLength: 10_000, description: 'What to remember (at most 10,000 characters).' },
        type: {
          type: 'string',
          enum: [...MEMORY_TYPES],
          default: 'note',
          description: 'Kind of memory: fact, decision, learning, preference or note.',
        },
        ttl_seconds: TTL(MEMORY_LIMITS.maxTtlSeconds, 'the memory'),
      },
    },
    annotations: { readOnlyHint: false, idempotentHint: false },
    async call(args, caller) {
      const project = projectOf(caller);
      const r = await remember(knowledge.redis, project, {
        text: args.text,
        type: args.type,
        ttlSeconds: args.ttl_seconds,
        createdBy: caller.label,
      });
      if ('full' in r)
        throw new ToolFailure(
          `The project's memories are full: ${r.full.memories} of at most ${MEMORY_LIMITS.perProject}, ${r.full.bytes} of at most ${MEMORY_LIMITS.bytesPerProject} bytes; let some expire before adding more.`,
        );
      const m = r.memory;
      return text(`Remembered (${m.type}, ${m.id})${m.expiresAt ? ` until ${m.expiresAt}` : ''}.`, {
        id: m.id,
        type: m.type,
        created_at: m.createdAt,
        expires_at: m.expiresAt,
      });
    },
  });
}
