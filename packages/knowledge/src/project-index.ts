/**
 * One project's search index on one replica: section fields in parallel arrays by numbered slot,
 * BM25 postings and int8 vectors by slot, and each document's slots, so a changed document is
 * swapped in without touching the others (docs/knowledge-tools.md "Search index"). No object per
 * section: a hit's fields are put together when it is shown ("Index memory"). Adding and removing
 * run in time slices (slicer.ts): a 10,000-section project never holds the event loop in one turn.
 */
import { Bm25 } from './bm25.ts';
import type { StoredSection } from './documents.ts';
import type { Slicer } from './slicer.ts';
import { VectorPool } from './vectors.ts';

/** What a hit shows of a section; the vector lives in the VectorPool, not here. */
export type SectionMeta = Omit<StoredSection, 'emb' | 'vec'>;

/**
 * Heap bytes per slot beyond the text, counted by approximateBytes: five array elements (8 bytes
 * each), the ord (4), and the headers of the id, heading and text strings (16 each) with the id's
 * characters (about 16).
 */
const SLOT_BYTES = 5 * 8 + 4 + 3 * 16 + 16;

export class ProjectIndex {
  /** Version of the project (its `ver` key) the index reflects. */
  version = '';
  /** Set when some vectors are missing (embedder down): reload after this time to fill them in. */
  retryAt: number | null = null;
  readonly bm25 = new Bm25();
  readonly vectors = new VectorPool();
  /** Section id per slot; undefined for a free slot. */
  private readonly ids: (string | undefined)[] = [];
  /** Document name per slot: one string shared by the document's slots, not a copy each. */
  private readonly docNames: string[] = [];
  private readonly headings: string[] = [];
  private readonly texts: string[] = [];
  /** Heading path per slot; null when it is just [heading], as it is for most sections. */
  private readonly paths: (string[] | null)[] = [];
  private ords = new Int32Array(0);
  private readonly free: number[] = [];
  private readonly docs = new Map<string, { name: string; slots: number[] }>();
  private textChars = 0;

  get size(): number {
    return this.bm25.size;
  }

  section(slot: number): SectionMeta | undefined {
    const id = this.ids[slot];
    if (id === undefined) return undefined;
    const heading = this.headings[slot] as string;
    return {
      id,
      doc: this.docNames[slot] as string,
      path: this.paths[slot] ?? [heading],
      heading,
      text: this.texts[slot] as string,
      ord: this.ords[slot] as number,
    };
  }

  /** Order of equal scores: document name, then position in it (the same for every build). */
  compare(a: number, b: number): number {
    if (this.ids[a] === undefined || this.ids[b] === undefined) return a - b;
    const x = this.docNames[a] as string;
    const y = this.docNames[b] as string;
    return x < y ? -1 : x > y ? 1 : (this.ords[a] as number) - (this.ords[b] as number);
  }

  async add(sections: Iterable<{ section: StoredSection; vector: Float32Array | null }>, s: Slicer): Promise<void> {
    for (const { section, vector } of sections) {
      const { id, doc, path, heading, text, ord } = section;
      const slot = this.free.pop() ?? this.ids.length;
      let entry = this.docs.get(doc);
      if (!entry) this.docs.set(doc, (entry = { name: doc, slots: [] }));
      entry.slots.push(slot);
      this.ids[slot] = id;
      this.docNames[slot] = entry.name;
      this.headings[slot] = heading;
      this.texts[slot] = text;
      this.paths[slot] = path.length === 1 && path[0] === heading ? null : path;
      if (slot >= this.ords.length) {
        const ords = new Int32Array(Math.max(16, Math.ceil(this.ords.length * 1.5), slot + 1));
        ords.set(this.ords);
        this.ords = ords;
      }
      this.ords[slot] = ord;
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
    const terms = new Set<number>();
    for (const name of names) {
      for (const slot of this.docs.get(name)?.slots ?? []) {
        const heading = this.headings[slot];
        const text = this.texts[slot];
        if (this.ids[slot] === undefined || heading === undefined || text === undefined) continue;
        this.bm25.release(slot, heading, text, (t) => terms.add(t));
        this.vectors.clear(slot);
        this.textChars -= text.length + heading.length;
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
      this.ids[slot] = undefined;
      this.docNames[slot] = '';
      this.headings[slot] = '';
      this.texts[slot] = '';
      this.paths[slot] = null;
      this.free.push(slot);
    }
  }

  /**
   * Heap bytes of this index, for the replica's memory budget (search.ts): text at 1 byte a
   * character (Latin-1 strings; 2 for other text), the per-slot arrays and string headers, and the
   * typed arrays of postings and vectors by their capacity.
   */
  approximateBytes(): number {
    return this.textChars + this.ids.length * SLOT_BYTES + this.bm25.approximateBytes() + this.vectors.approximateBytes();
  }
}
