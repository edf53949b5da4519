/** svc_ask: the passages of the project's documents that answer a question, with citations. Extractive: no language model. */
import { bestPassages } from '@svc/knowledge';
import type { KnowledgeToolDeps } from './svc-knowledge-shared.ts';
import { projectOf, QUERY, round, where } from './svc-knowledge-shared.ts';
import type { ToolDefinition } from './types.ts';
import { defineTool, text } from './types.ts';

/** Sections whose paragraphs compete for the answer. */
const SECTIONS = 5;

export function svcAsk(deps: KnowledgeToolDeps): ToolDefinition {
  const { knowledge } = deps;
  return defineTool({
    name: 'svc_ask',
    title: 'Ask the project documents',
    description:
      "Answers a question with the passages of the project's documents that best match it, each cited by document and heading. " +
      'The passages are quoted as written; no language model rewrites them.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['query'],
      properties: {
        query: { ...QUERY, description: 'The question.' },
        limit: { type: 'integer', minimum: 1, maximum: 10, default: 3, description: 'How many passages to return (1-10).' },
      },
    },
    annotations: { readOnlyHint: true, idempotentHint: true },
    async call(args, caller) {
      const project = projectOf(caller);
      const hits = await knowledge.search.search(project, args.query, 'keyword', SECTIONS, caller.workspace);
      const passages = bestPassages(args.query, hits, args.limit);
      if (passages.length === 0)
        return text(
          `No passage in this project's documents answers "${args.query}". Rephrase, or upload documents with svc_upload_document.`,
          {
            query: args.query,
            passages: [],
          },
        );
      const body = passages.map((p, i) => `[${i + 1}] ${p.text}`).join('\n\n');
      const sources = passages.map((p, i) => `[${i + 1}] ${where(p)} (section ${p.sectionId})`).join('\n');
      return text(`${body}\n\nSources:\n${sources}`, {
        query: args.query,
        passages: passages.map((p, i) => ({
          citation: i + 1,
          text: p.text,
          document: p.doc,
          heading: p.heading,
          path: p.path,
          section_id: p.sectionId,
          score: round(p.score),
        })),
      });
    },
  });
}
