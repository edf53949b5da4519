/**
 * What the knowledge tools share: their deps, the caller's project (these tools are project tools;
 * the policy table keeps them off the team endpoint, this is the second lock), and how a search
 * hit reads to a model.
 */
import type { Knowledge, SearchHit } from '@svc/knowledge';
import type { ToolCaller } from './types.ts';
import { ToolFailure } from './types.ts';

export interface KnowledgeToolDeps {
  knowledge: Knowledge;
}

export function projectOf(caller: ToolCaller): string {
  if (!caller.project) throw new ToolFailure('This tool works on one project: call it on /mcp/<project_slug>.');
  return caller.project;
}

/** "ops.md › Rotation": where a section is, for citations. */
export function where(hit: { doc: string; path: string[] }): string {
  return [hit.doc, ...hit.path].join(' › ');
}

export function hitJson(hit: SearchHit, rank: number) {
  return { rank, document: hit.doc, heading: hit.heading, path: hit.path, section_id: hit.id, score: round(hit.score), text: hit.text };
}

export function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}

/** Reusable schema pieces: every property carries a description, as tools/list shows them to models. */
export const QUERY = { type: 'string', minLength: 1, maxLength: 1000, description: 'What to look for, in words.' } as const;
export const TTL = (max: number, what: string) =>
  ({ type: 'integer', minimum: 1, maximum: max, description: `Seconds until ${what} expires (at most ${max}).` }) as const;
