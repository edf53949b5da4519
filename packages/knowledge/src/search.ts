/**
 * Search over a project's sections. Each replica keeps an in-memory index per project (BM25
 * postings and vectors), rebuilt when the project's version counter in Redis has moved, so a search
 * costs one GET when nothing changed and every replica sees an upload at once. Redis stays the
 * only source of truth.
 */
import type { Redis } from 'ioredis';
import { buildBm25, idfOf, scoreBm25, top, type Bm25Index } from './bm25.ts';
import { loadSnapshot, type IndexedSection } from './snapshot.ts';
import { cosine, type Embedder } from './embedder.ts';
import { kbKeys } from './keys.ts';

export type SearchMode = 'keyword' | 'semantic' | 'hybrid';

export interface SearchHit {
  id: string;
  doc: string;
  heading: string;
  path: string[];
  text: string;
  score: number;
}

interface ProjectIndex {
  version: string;
  sections: IndexedSection[];
  bm25: Bm25Index;
  /** Set when some vectors are missing (embedder down): reload after this time to fill them in. */
  retryAt: number | null;
}

const RETRY_EMBEDDING_MS = 30_000;

/** RRF constant from Cormack, Clarke & Büttcher (SIGIR 2009). */
const RRF_K = 60;
/** How deep each ranking goes before fusion. */
const FUSION_DEPTH = 50;

export interface SearchIndexOptions {
  /** Projects whose index a replica keeps in memory (least recently used dropped first). */
  maxProjects?: number;
  onEmbedFailure?: (err: unknown) => void;
}

export function createSearchIndex(redis: Redis, embedder: Embedder, options: SearchIndexOptions = {}) {
  const maxProjects = options.maxProjects ?? 64;
  const cache = new Map<string, ProjectIndex>();
  const loading = new Map<string, Promise<ProjectIndex>>();

  async function indexFor(project: string): Promise<ProjectIndex> {
    const version = (await redis.get(kbKeys(project).version)) ?? '0';
    const cached = cache.get(project);
    if (cached && cached.version === version && (cached.retryAt === null || cached.retryAt > Date.now())) {
      cache.delete(project);
      cache.set(project, cached);
      return cached;
    }
    let p = loading.get(project);
    if (!p) {
      p = load(project).finally(() => loading.delete(project));
      loading.set(project, p);
    }
    return p;
  }

  async function load(project: string): Promise<ProjectIndex> {
    const snap = await loadSnapshot(redis, embedder, project, options.onEmbedFailure);
    const index: ProjectIndex = {
      version: snap.version,
      sections: snap.sections,
      bm25: buildBm25(snap.sections),
      retryAt: snap.sections.some((s) => !s.vector) ? Date.now() + RETRY_EMBEDDING_MS : null,
    };
    cache.delete(project);
    cache.set(project, index);
    while (cache.size > maxProjects) cache.delete(cache.keys().next().value as string);
    return index;
  }

  const hit = (idx: ProjectIndex, doc: number, score: number): SearchHit => {
    const s = idx.sections[doc] as IndexedSection;
    return { id: s.id, doc: s.doc, heading: s.heading, path: s.path, text: s.text, score };
  };

  function keywordRanks(idx: ProjectIndex, query: string, limit: number) {
    return scoreBm25(idx.bm25, query, limit);
  }

  async function semanticRanks(idx: ProjectIndex, query: string, limit: number) {
    if (idx.sections.length === 0) return [];
    const q = embedder.embedQuery ? embedder.embedQuery(query, (stem) => idfOf(idx.bm25, stem)) : (await embedder.embed([query]))[0];
    if (!q) return [];
    const scored: { doc: number; score: number }[] = [];
    idx.sections.forEach((s, doc) => {
      if (s.vector) scored.push({ doc, score: cosine(q, s.vector) });
    });
    return top(
      scored.filter((x) => x.score > embedder.minSimilarity),
      limit,
    );
  }

  return {
    /** Sections best matching `query` in `mode`, best first. */
    async search(project: string, query: string, mode: SearchMode, limit: number): Promise<SearchHit[]> {
      const idx = await indexFor(project);
      if (mode === 'keyword') return keywordRanks(idx, query, limit).map((r) => hit(idx, r.doc, r.score));
      if (mode === 'semantic') return (await semanticRanks(idx, query, limit)).map((r) => hit(idx, r.doc, r.score));
      const depth = Math.max(limit, FUSION_DEPTH);
      const fused = new Map<number, number>();
      for (const ranking of [keywordRanks(idx, query, depth), await semanticRanks(idx, query, depth)])
        ranking.forEach((r, rank) => fused.set(r.doc, (fused.get(r.doc) ?? 0) + 1 / (RRF_K + rank + 1)));
      return top(
        [...fused].map(([doc, score]) => ({ doc, score })),
        limit,
      ).map((r) => hit(idx, r.doc, r.score));
    },
    /** Number of sections indexed for a project. */
    async size(project: string): Promise<number> {
      return (await indexFor(project)).sections.length;
    },
  };
}
