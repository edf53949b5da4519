/**
 * Okapi BM25 over an in-memory inverted index (k1 = 1.2, b = 0.75, the usual defaults; idf as in
 * Lucene, never negative). Heading words count twice: a section titled "Refresh Tokens" is more
 * about refresh tokens than one that mentions them once.
 *
 * The index is incremental: documents are added to and removed from numbered slots, and the
 * scores equal those of an index built afresh over the same documents. Terms are 32-bit hashes and
 * postings live in typed arrays (postings.ts), a few bytes each (docs/knowledge-tools.md
 * "Index memory"). Two terms whose hashes collide are one term to the index: their postings merge.
 */
import { HashCounts } from './hash-counts.ts';
import { PostingStore } from './postings.ts';
import { runAll } from './slicer.ts';
import { termHash, termHashes } from './text.ts';

const K1 = 1.2;
const B = 0.75;
/** Scored documents handed to `visit` between two yields of `scoring`. */
const VISITS_PER_YIELD = 4_096;

/** One document's terms at a time (add and release are synchronous): no Map per document. */
const terms = new HashCounts();

/** Term hash -> frequency in one document, heading words counted twice, in first-seen order. */
function documentTerms(heading: string, text: string): HashCounts {
  terms.clear();
  for (const t of termHashes(heading)) {
    terms.add(t);
    terms.add(t);
  }
  for (const t of termHashes(text)) terms.add(t);
  return terms;
}

export class Bm25 {
  private readonly postings = new PostingStore();
  /** Length in terms per slot; -1 for an empty slot. */
  private lengths = new Int32Array(0);
  private live = 0;
  private totalLength = 0;
  /** Score per slot while one query is scored; all zero between queries. */
  private scratch = new Float64Array(0);
  /** One term's postings (slot, term frequency) while it is scored. */
  private docs = new Int32Array(0);
  private tfs = new Int32Array(0);

  /** Indexes a document in a free slot. */
  add(slot: number, heading: string, text: string): void {
    const tf = documentTerms(heading, text);
    let length = 0;
    for (let i = 0; i < tf.size; i++) {
      length += tf.count(i);
      this.postings.add(tf.key(i), slot, tf.count(i));
    }
    if (slot >= this.lengths.length) {
      const lengths = new Int32Array(Math.max(slot + 1, this.lengths.length * 2, 16)).fill(-1);
      lengths.set(this.lengths);
      this.lengths = lengths;
    }
    this.lengths[slot] = length;
    this.live++;
    this.totalLength += length;
  }

  /**
   * First step of removing a document: frees its slot's length and calls `visit` with each of its
   * terms. The caller then calls purge() for each term of the removed documents (in slices, across
   * event-loop turns).
   */
  release(slot: number, heading: string, text: string, visit: (term: number) => void): void {
    const length = this.lengths[slot] ?? -1;
    if (length >= 0) {
      this.lengths[slot] = -1;
      this.live--;
      this.totalLength -= length;
    }
    const tf = documentTerms(heading, text);
    for (let i = 0; i < tf.size; i++) visit(tf.key(i));
  }

  /** Drops the postings of `slots` from one term's list. */
  purge(term: number, slots: ReadonlySet<number>): void {
    this.postings.remove(term, slots);
  }

  get size(): number {
    return this.live;
  }

  /** Heap bytes of the index: its typed arrays, which are all it holds. */
  approximateBytes(): number {
    return this.postings.bytes + this.lengths.byteLength;
  }

  /** Scores of the documents matching at least one query term, unsorted. */
  score(query: string): Map<number, number> {
    const scores = new Map<number, number>();
    this.scoreEach(query, (doc, s) => scores.set(doc, s));
    return scores;
  }

  /**
   * Calls `visit(doc, score)` once for each document matching at least one query term, in no
   * order. Scores add up in a typed array by slot rather than a Map: at 100,000 sections a common
   * query word matches most of them (docs/benchmarks.md "Search and ingestion at scale").
   */
  scoreEach(query: string, visit: (doc: number, score: number) => void): void {
    runAll(this.scoring(query, visit));
  }

  /**
   * scoreEach as work that yields after each query term and every VISITS_PER_YIELD documents
   * (slicer.ts runInSlices): a query of many common words walks most postings of a 10,000-section
   * project several times. The index must not change until it is done (search.ts runs one search
   * or update of a project at a time).
   */
  *scoring(query: string, visit: (doc: number, score: number) => void): Generator<void, void> {
    const avg = this.live ? this.totalLength / this.live : 0;
    if (this.scratch.length < this.lengths.length) {
      this.scratch = new Float64Array(this.lengths.length);
      this.docs = new Int32Array(this.lengths.length);
      this.tfs = new Int32Array(this.lengths.length);
    }
    const { scratch: acc, docs, tfs } = this;
    const touched: number[] = [];
    for (const t of new Set(termHashes(query))) {
      // One walk of the term's chain gathers its postings and so its document frequency: a
      // separate count() would walk it twice (docs/benchmarks.md "Search and ingestion at scale").
      let df = 0;
      this.postings.forEach(t, (doc, tf) => {
        docs[df] = doc;
        tfs[df++] = tf;
      });
      const idf = Math.log(1 + (this.live - df + 0.5) / (df + 0.5));
      for (let i = 0; i < df; i++) {
        const doc = docs[i] as number;
        const tf = tfs[i] as number;
        const len = this.lengths[doc] ?? 0;
        // idf > 0 and tf >= 1: every term adds a positive score, so 0 marks an untouched slot.
        const s = (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * len) / (avg || 1)));
        if (acc[doc] === 0) touched.push(doc);
        acc[doc] = (acc[doc] as number) + s;
      }
      yield;
    }
    for (const [i, doc] of touched.entries()) {
      visit(doc, acc[doc] as number);
      acc[doc] = 0;
      if (i % VISITS_PER_YIELD === VISITS_PER_YIELD - 1) yield;
    }
  }

  /** Inverse document frequency of a term (as scored above); unseen terms get the highest. */
  idf(term: string): number {
    return this.idfOf(termHash(term));
  }

  private idfOf(term: number): number {
    const df = this.postings.count(term);
    return Math.log(1 + (this.live - df + 0.5) / (df + 0.5));
  }
}

/** An index of `docs` in slots 0..n-1 (passages of svc_ask: a few paragraphs, built per call). */
export function buildBm25(docs: { heading: string; text: string }[]): Bm25 {
  const index = new Bm25();
  docs.forEach((d, i) => index.add(i, d.heading, d.text));
  return index;
}

/** Scores of the documents matching at least one query term, best first (ties: lower slot first). */
export function scoreBm25(index: Bm25, query: string, limit: number): { doc: number; score: number }[] {
  return top(
    [...index.score(query)].map(([doc, score]) => ({ doc, score })),
    limit,
  );
}

function top<T extends { score: number; doc: number }>(items: T[], limit: number): T[] {
  return items.sort((a, b) => b.score - a.score || a.doc - b.doc).slice(0, limit);
}
