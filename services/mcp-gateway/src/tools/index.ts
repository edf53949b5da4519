/** Every tool the gateway has a handler for; a tool of the policy table without one is not listed. */
import type { Accounts, Redis } from '@svc/accounts';
import type { Embedder } from '@svc/knowledge';
import type { Logger } from '@svc/logger';
import { knowledgeTools } from './knowledge.ts';
import { svcHelp } from './svc-help.ts';
import { svcRequestAccess } from './svc-request-access.ts';
import type { ToolDefinition } from './types.ts';

export interface ToolDeps {
  redis: Redis;
  accounts: Accounts;
  logger: Logger;
  /** Semantic search's embedder (EMBEDDINGS_URL); absent, the built-in local one. */
  embedder?: Embedder;
}

export function createTools(deps: ToolDeps): ToolDefinition[] {
  const tools: ToolDefinition[] = [svcRequestAccess(deps), ...knowledgeTools(deps)];
  // svc_help describes the final set, itself included.
  tools.unshift(svcHelp(() => tools));
  return tools;
}
