/**
 * One project's search index on one replica: section metadata in numbered slots, BM25 postings
 * and int8 vectors by slot, and each document's slots, so a changed document is swapped in
 * without touching the others (docs/knowledge-tools.md "Search index"). Adding and removing run in
 * time slices (slicer.ts): a 10,000-section project never holds the event loop in one turn.
 */
import { Bm25 } from './bm25.ts';
import type { StoredSection } from './documents.ts';
import type { Slicer } from './slicer.ts';
import { VectorPool } from './vectors.ts';

/** What a hit shows of a section; the vector lives in the VectorPool, not here. */
export type SectionMeta = Omit<StoredSection, 'emb' | 'vec'>;

/** Per-section bookkeeping counted by approximateBytes (object headers, ids, path array). */
const SECTION_OVERHEAD_BYTES = 160;

export class ProjectIndex {
  /** Version of the project (its `ver` key) the index reflects. */
  version = '';
  /** Set when some vectors are missing (embedder down): reload after this time to fill them in. */
  retryAt: number | null = null;
  readonly bm25 = new Bm25();
  readonly vectors = new VectorPool();
  private readonly slots: (SectionMeta | undefined)[] = [];
  private readonly free: number[] = [];
  private readonly docs = new Map<string, number[]>();
  private textChars = 0;

  get size(): number {
    return this.bm25.size;
  }

  section(slot: number): SectionMeta | undefined {
    return this.slots[slot];
  }

  /** Slots holding a section, for a scan over every vector. */
  *liveSlots(): Iterable<number> {
    for (let i = 0; i < this.slots.length; i++) if (this.slots[i]) yield i;
  }

  /** Order of equal scores: document name, then position in it (the same for every build). */
  compare(a: number, b: number): number {
    const x = this.slots[a];
    const y = this.slots[b];
    if (!x || !y) return a - b;
    return x.doc < y.doc ? -1 : x.doc > y.doc ? 1 : x.ord - y.ord;
  }

  async add(sections: Iterable<{ section: StoredSection; vector: Float32Array | null }>, s: Slicer): Promise<void> {
    for (const { section, vector } of sections) {
      const { id, doc, path, heading, text, ord } = section;
      const slot = this.free.pop() ?? this.slots.length;
      this.slots[slot] = { id, doc, path, heading, text, ord };
      let list = this.docs.get(doc);
      if (!list) this.docs.set(doc, (list = []));
      list.push(slot);
      this.bm25.add(slot, heading, text);
      if (vector) this.vectors.set(slot, vector);
      else this.vectors.clear(slot);
      this.textChars += text.length + heading.length;
      await s.maybeYield();
    }
  }

  /** Removes every section of the named documents. */
  async removeDocuments(names: Iterable<string>, s: Slicer): Promise<void> {
    const gone = new Set<number>();
    const terms = new Set<string>();
    for (const name of names) {
      for (const slot of this.docs.get(name) ?? []) {
        const meta = this.slots[slot];
        if (!meta) continue;
        for (const t of this.bm25.release(slot, meta.heading, meta.text)) terms.add(t);
        this.vectors.clear(slot);
        this.textChars -= meta.text.length + meta.heading.length;
        gone.add(slot);
        await s.maybeYield();
      }
      this.docs.delete(name);
    }
    for (const t of terms) {
      this.bm25.purge(t, gone);
      await s.maybeYield();
    }
    for (const slot of gone) {
      this.slots[slot] = undefined;
      this.free.push(slot);
    }
  }

  /** Rough heap bytes of this index, for the replica's memory budget (search.ts). */
  approximateBytes(): number {
    return this.textChars + this.size * SECTION_OVERHEAD_BYTES + this.bm25.approximateBytes() + this.vectors.approximateBytes();
  }
}
