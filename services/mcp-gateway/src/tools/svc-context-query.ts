/**
 * svc_context_query: the most relevant sections that fit a token budget, most relevant first,
 * after the context injected for this session. Tokens are estimated as characters / 4.
 * Ranking is BM25 (keyword): this is a FREE-plan tool, and semantic ranking is the PRO part of svc_search.
 */
import { estimateTokens, readContext } from '@svc/knowledge';
import type { KnowledgeToolDeps } from './svc-knowledge-shared.ts';
import { projectOf, QUERY, round, where } from './svc-knowledge-shared.ts';
import type { ToolDefinition } from './types.ts';
import { defineTool, text } from './types.ts';

const CANDIDATES = 50;

export function svcContextQuery(deps: KnowledgeToolDeps): ToolDefinition {
  const { knowledge } = deps;
  return defineTool({
    name: 'svc_context_query',
    title: 'Context for a query',
    description:
      "Returns the project's most relevant document sections for a query that fit a token budget (tokens estimated as characters / 4), " +
      'each with its document and heading, preceded by any context injected for this session with svc_inject.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['query'],
      properties: {
        query: QUERY,
        max_tokens: {
          type: 'integer',
          minimum: 100,
          maximum: 100_000,
          default: 4000,
          description: 'Token budget for the returned text (estimated as characters / 4).',
        },
        include_session_context: {
          type: 'boolean',
          default: true,
          description: 'Put the context injected for this session (svc_inject) first.',
        },
      },
    },
    annotations: { readOnlyHint: true, idempotentHint: true },
    async call(args, caller) {
      const project = projectOf(caller);
      const budget = args.max_tokens;
      let used = 0;
      const blocks: string[] = [];
      const session = args.include_session_context ? await readContext(knowledge.redis, project, caller.sessionId) : [];
      const sessionUsed: string[] = [];
      for (const e of session) {
        const block = `[session context] ${e.text}`;
        if (used + estimateTokens(block) > budget) continue;
        used += estimateTokens(block);
        blocks.push(block);
        sessionUsed.push(e.id);
      }
      const hits = await knowledge.search.search(project, args.query, 'keyword', CANDIDATES, caller.workspace);
      const sections: Record<string, unknown>[] = [];
      for (const h of hits) {
        let body = h.text;
        let block = `## ${where(h)}\n\n${body}`;
        let truncated = false;
        if (used + estimateTokens(block) > budget) {
          // Only the best section is cut to fit, so an answer never comes back empty for a small budget.
          if (sections.length > 0) continue;
          const room = (budget - used) * 4 - (block.length - body.length) - 1;
          if (room < 200) continue;
          body = `${body.slice(0, room)}…`;
          block = `## ${where(h)}\n\n${body}`;
          truncated = true;
        }
        used += estimateTokens(block);
        blocks.push(block);
        sections.push({
          document: h.doc,
          heading: h.heading,
          path: h.path,
          section_id: h.id,
          score: round(h.score),
          tokens: estimateTokens(block),
          truncated,
        });
      }
      const summary =
        sections.length === 0 && blocks.length === 0
          ? `No section matches "${args.query}".`
          : `${sections.length} section${sections.length === 1 ? '' : 's'}${sessionUsed.length ? ` and ${sessionUsed.length} session context entr${sessionUsed.length === 1 ? 'y' : 'ies'}` : ''}, about ${used} of ${budget} tokens (characters / 4).`;
      return text(blocks.length ? `${blocks.join('\n\n')}\n\n(${summary})` : summary, {
        query: args.query,
        budget_tokens: budget,
        used_tokens: used,
        token_estimate: 'characters / 4',
        session_context: sessionUsed,
        sections,
      });
    },
  });
}
