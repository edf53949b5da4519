/**
 * svc_multi_project_query (team endpoint): searches every project the service account is granted in
 * the team, results labelled by project. Reads only caller.grantedProjects, whatever it is sent.
 */
import type { KnowledgeToolDeps } from './svc-knowledge-shared.ts';
import { hitJson, QUERY, where } from './svc-knowledge-shared.ts';
import type { ToolDefinition } from './types.ts';
import { defineTool, text } from './types.ts';

export function svcMultiProjectQuery(deps: KnowledgeToolDeps): ToolDefinition {
  const { knowledge } = deps;
  return defineTool({
    name: 'svc_multi_project_query',
    title: 'Query several projects',
    description:
      "Searches the documents of every project this service account is granted in the team and returns each project's best sections, labelled by project.",
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['query'],
      properties: {
        query: QUERY,
        mode: {
          type: 'string',
          enum: ['keyword', 'semantic', 'hybrid'],
          default: 'hybrid',
          description: 'keyword (BM25), semantic (embeddings) or hybrid (both, fused).',
        },
        limit: { type: 'integer', minimum: 1, maximum: 20, default: 3, description: 'Sections per project (1-20).' },
      },
    },
    annotations: { readOnlyHint: true, idempotentHint: true },
    async call(args, caller) {
      const projects = [...new Set(caller.grantedProjects)].sort();
      const per = await Promise.all(
        projects.map(async (project) => ({
          project,
          hits: await knowledge.search.search(project, args.query, args.mode, args.limit),
        })),
      );
      // Best first across projects: each project's first hit, by score within one mode.
      const ordered = per.filter((p) => p.hits.length).sort((a, b) => (b.hits[0]?.score ?? 0) - (a.hits[0]?.score ?? 0));
      const structured = {
        query: args.query,
        mode: args.mode,
        projects_searched: projects,
        results: ordered.flatMap((p) => p.hits.map((h, i) => ({ project: p.project, ...hitJson(h, i + 1) }))),
      };
      if (!projects.length) return text('This service account has no project grant in this team.', structured);
      if (!ordered.length)
        return text(`No section matches "${args.query}" in ${projects.length} project(s): ${projects.join(', ')}.`, structured);
      const blocks = ordered.flatMap((p) => p.hits.map((h) => `[${p.project}] ${where(h)}\n\n${h.text}`));
      return { content: blocks.map((b) => ({ type: 'text' as const, text: b })), structuredContent: structured };
    },
  });
}
