/**
 * @svc/knowledge: project knowledge stored in Redis (documents and their search index, session
 * context, memories, swarms with leases, hierarchical tasks), every key under the project's hash
 * tag. The gateway's tools (services/mcp-gateway/src/tools/svc-*.ts) are thin layers over it.
 */
import type { Redis } from 'ioredis';
import type { Embedder } from './embedder.ts';
import { localEmbedder } from './embedder.ts';
import { createSearchIndex } from './search.ts';

export * from './context.ts';
export * from './documents.ts';
export * from './embedder.ts';
export * from './keys.ts';
export * from './markdown.ts';
export * from './memories.ts';
export * from './passages.ts';
export * from './search.ts';
export * from './swarms.ts';
export * from './tasks.ts';
export { SLICE_MS } from './slicer.ts';
export { estimateTokens } from './text.ts';

export interface KnowledgeOptions {
  /** Default: the built-in local embedder. */
  embedder?: Embedder;
  /** Called when the embedder fails (logged by the caller; keyword search keeps working). */
  onEmbedFailure?: (err: unknown) => void;
  maxCachedProjects?: number;
}

/** What the tools share: one Redis client, one embedder, one per-replica search cache. */
export interface Knowledge {
  redis: Redis;
  embedder: Embedder;
  search: ReturnType<typeof createSearchIndex>;
  onEmbedFailure: (err: unknown) => void;
}

export function createKnowledge(redis: Redis, options: KnowledgeOptions = {}): Knowledge {
  const embedder = options.embedder ?? localEmbedder();
  const onEmbedFailure = options.onEmbedFailure ?? (() => {});
  return {
    redis,
    embedder,
    onEmbedFailure,
    search: createSearchIndex(redis, embedder, { maxProjects: options.maxCachedProjects ?? 64, onEmbedFailure }),
  };
}
