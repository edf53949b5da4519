/**
 * Search over a project's sections. Each replica keeps an in-memory index per project (BM25
 * postings and int8 vectors, project-index.ts). A search costs one GET when the project's version
 * has not moved; when it has, the replica applies only the documents changed since (the change
 * log, snapshot.ts) and loads afresh only when it has no index or the log no longer reaches back.
 * Redis stays the only source of truth. The indexes a replica keeps are bounded by their total
 * approximate bytes as well as by their number (docs/knowledge-tools.md "Index memory"). Updates
 * and rankings run in time slices of the caller's tenant (slicer.ts), one at a time per project,
 * so no ranking reads an index half-way through an update, and no two share its scratch arrays.
 */
import type { Redis } from 'ioredis';
import type { Embedder } from './embedder.ts';
import { kbKeys } from './keys.ts';
import type { ProjectIndex } from './project-index.ts';
import { runInSlices, slicer, type Slicer } from './slicer.ts';
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
  /** Per project, the end of the last search or update queued on its index (see `exclusive`). */
  const queued = new Map<string, Promise<unknown>>();
  const loader = (project: string, tenant: string) => ({ redis, embedder, project, tenant, onEmbedFailure: options.onEmbedFailure });

  /**
   * Runs `work` on the project's index after the searches and updates queued before it: an index
   * updated or ranked in slices is half-way through meanwhile, so one runs at a time.
   */
  function exclusive<T>(project: string, work: () => Promise<T>): Promise<T> {
    const run = (queued.get(project) ?? Promise.resolve()).then(work);
    const end = run.catch(() => undefined);
    queued.set(project, end);
    void end.then(() => {
      if (queued.get(project) === end) queued.delete(project);
    });
    return run;
  }

  /** The project's index at its current version (call it inside `exclusive`); an update runs in `tenant`'s slices. */
  async function indexFor(project: string, tenant: string): Promise<ProjectIndex> {
    const version = (await redis.get(kbKeys(project).version)) ?? '0';
    const cached = cache.get(project);
    if (cached && cached.version === version && (cached.retryAt === null || cached.retryAt > Date.now())) {
      cache.delete(project);
      cache.set(project, cached);
      return cached;
    }
    return update(loader(project, tenant), cached);
  }

  async function update(o: ReturnType<typeof loader>, cached: ProjectIndex | undefined): Promise<ProjectIndex> {
    const { project } = o;
    let idx = cached;
    try {
      if (!idx || idx.retryAt !== null || !(await applyChanges(o, idx))) idx = await loadIndex(o);
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
  async function keywordRanks(idx: ProjectIndex, query: string, limit: number, s: Slicer): Promise<Ranked[]> {
    const top = new TopK(limit, before(idx));
    await runInSlices(
      idx.bm25.scoring(query, (doc, score) => top.offer(doc, score)),
      s,
    );
    return top.sorted();
  }

  async function semanticRanks(idx: ProjectIndex, q: Float32Array | undefined, limit: number, s: Slicer): Promise<Ranked[]> {
    if (!q) return [];
    const top = new TopK(limit, before(idx));
    const offer = (doc: number, score: number) => {
      if (score > embedder.minSimilarity) top.offer(doc, score);
    };
    await runInSlices(idx.vectors.dotting(q, offer), s);
    return top.sorted();
  }

  const hit = (idx: ProjectIndex, r: Ranked): SearchHit => {
    const s = idx.section(r.doc);
    if (!s) throw new Error('search hit on an empty slot');
    return { id: s.id, doc: s.doc, heading: s.heading, path: s.path, text: s.text, score: r.score };
  };

  return {
    /**
     * Sections best matching `query` in `mode`, best first. `tenant`: whose share of the event
     * loop's slices the index's update and the ranking take (the project's workspace; slicer.ts).
     */
    async search(project: string, query: string, mode: SearchMode, limit: number, tenant = project): Promise<SearchHit[]> {
      // A remote query vector is fetched before the project's turn: the turn holds its index.
      const remote = mode !== 'keyword' && !embedder.embedQuery ? (await embedder.embed([query]))[0] : undefined;
      return exclusive(project, async () => {
        const s = slicer(tenant);
        const idx = await indexFor(project, tenant);
        if (mode === 'keyword') return (await keywordRanks(idx, query, limit, s)).map((r) => hit(idx, r));
        const q = idx.size === 0 ? undefined : (embedder.embedQuery?.(query, (stem) => idx.bm25.idf(stem)) ?? remote);
        if (mode === 'semantic') return (await semanticRanks(idx, q, limit, s)).map((r) => hit(idx, r));
        const depth = Math.max(limit, FUSION_DEPTH);
        const fused = new Map<number, number>();
        for (const ranking of [await keywordRanks(idx, query, depth, s), await semanticRanks(idx, q, depth, s)])
          ranking.forEach((r, rank) => fused.set(r.doc, (fused.get(r.doc) ?? 0) + 1 / (RRF_K + rank + 1)));
        return [...fused]
          .map(([doc, score]) => ({ doc, score }))
          .sort(order(idx))
          .slice(0, limit)
          .map((r) => hit(idx, r));
      });
    },
    /** Number of sections indexed for a project. */
    async size(project: string, tenant = project): Promise<number> {
      return exclusive(project, async () => (await indexFor(project, tenant)).size);
    },
    /** Approximate bytes of every index this replica keeps (the figure maxBytes bounds). */
    cachedBytes(): number {
      let bytes = 0;
      for (const i of cache.values()) bytes += i.approximateBytes();
      return bytes;
    },
  };
}
