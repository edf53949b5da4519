/** svc_inject: context for the caller's session (optional TTL), read back first by svc_context_query. */
import { CONTEXT_LIMITS, injectContext } from '@svc/knowledge';
import type { KnowledgeToolDeps } from './svc-knowledge-shared.ts';
import { projectOf, TTL } from './svc-knowledge-shared.ts';
import type { ToolDefinition } from './types.ts';
import { defineTool, text, ToolFailure } from './types.ts';

export function svcInject(deps: KnowledgeToolDeps): ToolDefinition {
  const { knowledge } = deps;
  return defineTool({
    name: 'svc_inject',
    title: 'Inject session context',
    description:
      "Adds a piece of context to this session (the client's MCP session, or this credential when the client keeps none). " +
      `svc_context_query returns it before document sections. Expires after ttl_seconds (default ${CONTEXT_LIMITS.defaultTtlSeconds}).`,
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['text'],
      properties: {
        text: { type: 'string', minLength: 1, maxLength: 20_000, description: 'The context to add (at most 20,000 characters).' },
        ttl_seconds: TTL(CONTEXT_LIMITS.maxTtlSeconds, 'the context'),
      },
    },
    annotations: { readOnlyHint: false, idempotentHint: false },
    async call(args, caller) {
      const project = projectOf(caller);
      const r = await injectContext(knowledge.redis, project, caller.sessionId, args.text, args.ttl_seconds);
      if ('full' in r)
        throw new ToolFailure(
          `This session already holds ${r.full} context entries, the limit; wait for some to expire or start a new session.`,
        );
      return text(`Added to this session's context until ${r.entry.expiresAt} (${r.entries} entr${r.entries === 1 ? 'y' : 'ies'} now).`, {
        id: r.entry.id,
        expires_at: r.entry.expiresAt,
        entries: r.entries,
      });
    },
  });
}
