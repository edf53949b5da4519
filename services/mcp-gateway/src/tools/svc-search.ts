/** svc_search: keyword (BM25), semantic (embedder) or hybrid (reciprocal rank fusion) search of the project's sections. */
import { EmbedderError } from '@svc/knowledge';
import type { KnowledgeToolDeps } from './svc-knowledge-shared.ts';
import { hitJson, projectOf, QUERY, where } from './svc-knowledge-shared.ts';
import type { ToolDefinition, ToolResult } from './types.ts';
import { defineTool, ToolFailure } from './types.ts';

export function svcSearch(deps: KnowledgeToolDeps): ToolDefinition {
  const { knowledge } = deps;
  return defineTool({
    name: 'svc_search',
    title: 'Search project documents',
    description:
      "Searches the project's document sections. mode keyword ranks by BM25; semantic by embedding similarity; hybrid fuses both. " +
      'The best match comes first, each with its document and heading.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['query'],
      properties: {
        query: QUERY,
        // The plan needed for semantic and hybrid is in the policy table (argumentPlans), not here.
        mode: {
          type: 'string',
          enum: ['keyword', 'semantic', 'hybrid'],
          default: 'keyword',
          description: 'keyword (BM25), semantic (embeddings) or hybrid (both, fused).',
        },
        limit: { type: 'integer', minimum: 1, maximum: 50, default: 5, description: 'How many sections to return (1-50).' },
      },
    },
    annotations: { readOnlyHint: true, idempotentHint: true },
    async call(args, caller): Promise<ToolResult> {
      const project = projectOf(caller);
      let hits;
      try {
        hits = await knowledge.search.search(project, args.query, args.mode, args.limit, caller.workspace);
      } catch (err) {
        if (err instanceof EmbedderError)
          throw new ToolFailure(`Semantic ranking is unavailable right now (${err.message}); mode "keyword" still works.`);
        throw err;
      }
      const results = hits.map((h, i) => hitJson(h, i + 1));
      if (hits.length === 0)
        return {
          content: [
            {
              type: 'text',
              text: `No section matches "${args.query}" (${args.mode} search). Upload documents with svc_upload_document, or rephrase.`,
            },
          ],
          structuredContent: { query: args.query, mode: args.mode, results },
        };
      // One content block per hit, best first, so content[0] is the best section itself.
      return {
        content: hits.map((h, i) => ({ type: 'text' as const, text: `[${i + 1}] ${where(h)}\n\n${h.text}` })),
        structuredContent: { query: args.query, mode: args.mode, results },
      };
    },
  });
}
