/** Placeholder until the knowledge-tools work provides the generator (see docs/knowledge-tools.md). */
import type { ToolDefinition } from '../tools/types.ts';

export function buildOpenApi(tools: ToolDefinition[], opts: { baseUrl: string }): object {
  return { openapi: '3.1.0', info: { title: 'svc', version: '0.1.0' }, servers: [{ url: opts.baseUrl }], paths: {}, 'x-tools': tools.map((t) => t.name) };
}
