/**
 * svc_multi_project_query (team endpoint): searches the projects the service account is granted in
 * the team, results labelled by project. Reads only caller.grantedProjects, whatever it is sent.
 * One call searches at most MULTI_PROJECT_QUERY_MAX projects, one after another, so it holds at
 * most one index load at a time (docs/knowledge-tools.md "Searching several projects").
 */
import type { KnowledgeToolDeps } from './svc-knowledge-shared.ts';
import { hitJson, QUERY, where } from './svc-knowledge-shared.ts';
import type { ToolDefinition } from './types.ts';
import { defineTool, text } from './types.ts';

/** Projects one call searches: the first this many of the granted ones, or of those it names. */
export const MULTI_PROJECT_QUERY_MAX = 25;

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
        projects: {
          type: 'array',
          minItems: 1,
          maxItems: MULTI_PROJECT_QUERY_MAX,
          uniqueItems: true,
          items: { type: 'string', minLength: 1, maxLength: 63 },
          description: `Only these granted projects (slugs, at most ${MULTI_PROJECT_QUERY_MAX}); without it, the first ${MULTI_PROJECT_QUERY_MAX} granted, in name order.`,
        },
      },
    },
    annotations: { readOnlyHint: true, idempotentHint: true },
    async call(args, caller) {
      const granted = [...new Set(caller.grantedProjects)].sort();
      const named = args.projects;
      const asked = named ? granted.filter((p) => named.includes(p)) : granted;
      const projects = asked.slice(0, MULTI_PROJECT_QUERY_MAX);
      const per: { project: string; hits: Awaited<ReturnType<typeof knowledge.search.search>> }[] = [];
      // One project at a time: each may load an index of up to a few hundred megabytes.
      for (const project of projects)
        per.push({ project, hits: await knowledge.search.search(project, args.query, args.mode, args.limit, caller.workspace) });
      // Best first across projects: each project's first hit, by score within one mode.
      const ordered = per.filter((p) => p.hits.length).sort((a, b) => (b.hits[0]?.score ?? 0) - (a.hits[0]?.score ?? 0));
      const structured = {
        query: args.query,
        mode: args.mode,
        projects_searched: projects,
        projects_not_searched: granted.length - projects.length,
        results: ordered.flatMap((p) => p.hits.map((h, i) => ({ project: p.project, ...hitJson(h, i + 1) }))),
      };
      if (!granted.length) return text('This service account has no project grant in this team.', structured);
      if (!projects.length) return text('None of the projects named is granted to this service account in this team.', structured);
      if (!ordered.length)
        return text(`No section matches "${args.query}" in ${projects.length} project(s): ${projects.join(', ')}.`, structured);
      const blocks = ordered.flatMap((p) => p.hits.map((h) => `[${p.project}] ${where(h)}\n\n${h.text}`));
      if (!named && structured.projects_not_searched > 0)
        blocks.push(
          `Searched ${projects.length} of ${granted.length} granted projects; name others with the projects argument (at most ${MULTI_PROJECT_QUERY_MAX} a call).`,
        );
      return { content: blocks.map((b) => ({ type: 'text' as const, text: b })), structuredContent: structured };
    },
  });
}
