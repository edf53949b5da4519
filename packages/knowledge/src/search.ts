/**
 * Search over a project's sections. Each replica keeps an in-memory index per project (BM25
 * postings and int8 vectors, project-index.ts). A search costs one GET when the project's version
 * has not moved; when it has, the replica applies only the documents changed since (the change
 * log, snapshot.ts) and loads afresh only when it has no index or the log no longer reaches back.
 * Redis stays the only source of truth. The indexes a replica keeps are bounded by their total
 * approximate bytes as well as by their number (docs/knowledge-tools.md "Index memory").
 */
import type { Redis } from 'ioredis';
import type { Embedder } from './embedder.ts';
import { kbKeys } from './keys.ts';
import type { ProjectIndex } from './project-index.ts';
import { applyChanges, loadIndex } from './snapshot.ts';
import { TopK } from './top-k.ts';

export type SearchMode = 'keyword' | 'semantic' | 'hybrid';

export interface SearchHit {
  id: string;
  doc: string;
  heading: string;
  path: string[];
  text: string;
  score: number;
}

/** RRF constant from Cormack, Clarke & Büttcher (SIGIR 2009). */
const RRF_K = 60;
/** How deep each ranking goes before fusion. */
const FUSION_DEPTH = 50;

/** Default bounds of one replica's indexes (docs/knowledge-tools.md "Index memory"). */
const INDEX_CACHE = { maxProjects: 64, maxBytes: 192 * 1024 * 1024 } as const;

export interface SearchIndexOptions {
  /** Projects whose index a replica keeps in memory (least recently used dropped first). */
  maxProjects?: number;
  /** Approximate bytes of all kept indexes (least recently used dropped first; the one in use stays). */
  maxBytes?: number;
  onEmbedFailure?: (err: unknown) => void;
}

type Ranked = { doc: number; score: number };

export function createSearchIndex(redis: Redis, embedder: Embedder, options: SearchIndexOptions = {}) {
  const maxProjects = options.maxProjects ?? INDEX_CACHE.maxProjects;
  const maxBytes = options.maxBytes ?? INDEX_CACHE.maxBytes;
  const cache = new Map<string, ProjectIndex>();
  const updating = new Map<string, Promise<ProjectIndex>>();
  const loader = (project: string) => ({ redis, embedder, project, onEmbedFailure: options.onEmbedFailure });

  async function indexFor(project: string): Promise<ProjectIndex> {
    // While an update runs the cached index is half-way between versions: wait for it.
    const pending = updating.get(project);
    if (pending) return pending;
    const version = (await redis.get(kbKeys(project).version)) ?? '0';
    const again = updating.get(project);
    if (again) return again;
    const cached = cache.get(project);
    if (cached && cached.version === version && (cached.retryAt === null || cached.retryAt > Date.now())) {
      cache.delete(project);
      cache.set(project, cached);
      return cached;
    }
    const p = update(project, cached).finally(() => updating.delete(project));
    updating.set(project, p);
    return p;
  }

  async function update(project: string, cached: ProjectIndex | undefined): Promise<ProjectIndex> {
    let idx = cached;
    try {
      if (!idx || idx.retryAt !== null || !(await applyChanges(loader(project), idx))) idx = await loadIndex(loader(project));
    } catch (err) {
      // A failure half-way leaves the cached index between versions: never serve it again.
      cache.delete(project);
      throw err;
    }
    cache.delete(project);
    cache.set(project, idx);
    evict(project);
    return idx;
  }

  function evict(keep: string) {
    let bytes = 0;
    for (const i of cache.values()) bytes += i.approximateBytes();
    for (const [name, i] of cache) {
      if (cache.size <= maxProjects && bytes <= maxBytes) break;
      if (name === keep) continue;
      cache.delete(name);
      bytes -= i.approximateBytes();
    }
  }

  const order = (idx: ProjectIndex) => (a: Ranked, b: Ranked) => b.score - a.score || idx.compare(a.doc, b.doc);
  const before = (idx: ProjectIndex) => (a: number, b: number) => idx.compare(a, b) < 0;

  // Both rankings keep their best `limit` in a bounded heap (top-k.ts) rather than sorting every
  // matching section: at 100,000 sections the sort was most of a search (docs/benchmarks.md).
  function keywordRanks(idx: ProjectIndex, query: string, limit: number): Ranked[] {
    const top = new TopK(limit, before(idx));
    idx.bm25.scoreEach(query, (doc, score) => top.offer(doc, score));
    return top.sorted();
  }

  function semanticRanks(idx: ProjectIndex, q: Float32Array | undefined, limit: number): Ranked[] {
    if (!q) return [];
    const top = new TopK(limit, before(idx));
    idx.vectors.dotEach(q, (doc, score) => {
      if (score > embedder.minSimilarity) top.offer(doc, score);
    });
    return top.sorted();
  }

  const hit = (idx: ProjectIndex, r: Ranked): SearchHit => {
    const s = idx.section(r.doc);
    if (!s) throw new Error('search hit on an empty slot');
    return { id: s.id, doc: s.doc, heading: s.heading, path: s.path, text: s.text, score: r.score };
  };

  return {
    /** Sections best matching `query` in `mode`, best first. */
    async search(project: string, query: string, mode: SearchMode, limit: number): Promise<SearchHit[]> {
      // A remote query vector is fetched first: from here on to the hits nothing awaits, so an
      // update of this project's index never runs in the middle of a ranking.
      const remote = mode !== 'keyword' && !embedder.embedQuery ? (await embedder.embed([query]))[0] : undefined;
      const idx = await indexFor(project);
      if (mode === 'keyword') return keywordRanks(idx, query, limit).map((r) => hit(idx, r));
      const q = idx.size === 0 ? undefined : (embedder.embedQuery?.(query, (stem) => idx.bm25.idf(stem)) ?? remote);
      if (mode === 'semantic') return semanticRanks(idx, q, limit).map((r) => hit(idx, r));
      const depth = Math.max(limit, FUSION_DEPTH);
      const fused = new Map<number, number>();
      for (const ranking of [keywordRanks(idx, query, depth), semanticRanks(idx, q, depth)])
        ranking.forEach((r, rank) => fused.set(r.doc, (fused.get(r.doc) ?? 0) + 1 / (RRF_K + rank + 1)));
      return [...fused]
        .map(([doc, score]) => ({ doc, score }))
        .sort(order(idx))
        .slice(0, limit)
        .map((r) => hit(idx, r));
    },
    /** Number of sections indexed for a project. */
    async size(project: string): Promise<number> {
      return (await indexFor(project)).size;
    },
    /** Approximate bytes of every index this replica keeps (the figure maxBytes bounds). */
    cachedBytes(): number {
      let bytes = 0;
      for (const i of cache.values()) bytes += i.approximateBytes();
      return bytes;
    },
  };
}
