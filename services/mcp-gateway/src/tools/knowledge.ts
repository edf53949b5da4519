/** The project knowledge tools (documents, search, memory, swarms, tasks): see the tools issue. */
import type { ToolDeps } from './index.ts';
import type { ToolDefinition } from './types.ts';

export function knowledgeTools(_deps: ToolDeps): ToolDefinition[] {
  return [];
}
