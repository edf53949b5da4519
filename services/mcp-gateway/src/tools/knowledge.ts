/** The project knowledge tools (documents, search, memory, swarms, tasks): see docs/knowledge-tools.md. */
import type { Embedder } from '@svc/knowledge';
import { createKnowledge } from '@svc/knowledge';
import { svcAsk } from './svc-ask.ts';
import { svcClaim } from './svc-claim.ts';
import { svcContextQuery } from './svc-context-query.ts';
import { svcHtaskCreate } from './svc-htask-create.ts';
import { svcInject } from './svc-inject.ts';
import { svcMultiProjectQuery } from './svc-multi-project-query.ts';
import { svcRecall } from './svc-recall.ts';
import { svcRemember } from './svc-remember.ts';
import { svcSearch } from './svc-search.ts';
import { svcSwarmCreate } from './svc-swarm-create.ts';
import { svcUploadDocument } from './svc-upload-document.ts';
import type { ToolDefinition, ToolDeps } from './types.ts';

/**
 * `embedder`: from configuration (createEmbedder({ url, apiKey, model }) of @svc/knowledge);
 * absent, the built-in local embedder.
 */
export function knowledgeTools(deps: ToolDeps & { embedder?: Embedder }): ToolDefinition[] {
  const knowledge = createKnowledge(deps.redis, {
    ...(deps.embedder ? { embedder: deps.embedder } : {}),
    onEmbedFailure: (err) => deps.logger.warn('embedder failed; semantic ranking skips unembedded sections', { err }),
  });
  const d = { knowledge };
  return [
    svcUploadDocument(d),
    svcSearch(d),
    svcContextQuery(d),
    svcAsk(d),
    svcInject(d),
    svcRemember(d),
    svcRecall(d),
    svcSwarmCreate(d),
    svcClaim(d),
    svcHtaskCreate(d),
    svcMultiProjectQuery(d),
  ];
}
