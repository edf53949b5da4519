/**
 * Okapi BM25 over an in-memory inverted index (k1 = 1.2, b = 0.75, the usual defaults; idf as in
 * Lucene, never negative). Heading words count twice: a section titled "Refresh Tokens" is more
 * about refresh tokens than one that mentions them once.
 *
 * The index is incremental: documents are added to and removed from numbered slots, and the
 * scores equal those of an index built afresh over the same documents. Postings are flat arrays of
 * small integers ([slot, tf, slot, tf, ...] per term), not arrays of objects, and a term found in
 * one document only (most word pairs) keeps its one posting as a single small integer
 * (docs/knowledge-tools.md "Index memory").
 */
import { termFrequencies, termsWithPairs } from './text.ts';

const K1 = 1.2;
const B = 0.75;
/** A lone posting is slot * TF_SPAN + tf, a small integer (V8 Smi) while slot < 2^18. */
const TF_SPAN = 4096;
const MAX_PACKED_SLOT = 1 << 18;

type Postings = number | number[];

/** A term's postings as [slot, tf, ...]. */
function unpack(p: Postings): number[] {
  return typeof p === 'number' ? [Math.floor(p / TF_SPAN), p % TF_SPAN] : p;
}

/** Term -> frequency of one document, heading words counted twice. */
function documentTerms(heading: string, text: string): Map<string, number> {
  const h = termsWithPairs(heading);
  return termFrequencies([...h, ...h, ...termsWithPairs(text)]);
}

export class Bm25 {
  private readonly postings = new Map<string, Postings>();
  /** Length in terms per slot; -1 for an empty slot. */
  private readonly lengths: number[] = [];
  private live = 0;
  private totalLength = 0;
  private postingCount = 0;

  /** Indexes a document in a free slot; returns its length in terms. */
  add(slot: number, heading: string, text: string): void {
    const tf = documentTerms(heading, text);
    let length = 0;
    for (const [t, n] of tf) {
      length += n;
      const p = this.postings.get(t);
      if (p === undefined) this.postings.set(t, n < TF_SPAN && slot < MAX_PACKED_SLOT ? slot * TF_SPAN + n : [slot, n]);
      else if (typeof p === 'number') this.postings.set(t, [...unpack(p), slot, n]);
      else p.push(slot, n);
    }
    while (this.lengths.length <= slot) this.lengths.push(-1);
    this.lengths[slot] = length;
    this.live++;
    this.totalLength += length;
    this.postingCount += tf.size;
  }

  /**
   * First step of removing a document: frees its slot's length and returns its terms. The caller
   * then calls purge() for each term of the removed documents (in slices, across event-loop turns).
   */
  release(slot: number, heading: string, text: string): Iterable<string> {
    const length = this.lengths[slot] ?? -1;
    if (length >= 0) {
      this.lengths[slot] = -1;
      this.live--;
      this.totalLength -= length;
    }
    return documentTerms(heading, text).keys();
  }

  /** Drops the postings of `slots` from one term's list. */
  purge(term: string, slots: ReadonlySet<number>): void {
    const p = this.postings.get(term);
    if (p === undefined) return;
    if (typeof p === 'number') {
      if (slots.has(Math.floor(p / TF_SPAN))) {
        this.postings.delete(term);
        this.postingCount--;
      }
      return;
    }
    const list = p;
    let w = 0;
    for (let r = 0; r < list.length; r += 2) {
      const slot = list[r] as number;
      if (slots.has(slot)) continue;
      list[w++] = slot;
      list[w++] = list[r + 1] as number;
    }
    this.postingCount -= (list.length - w) / 2;
    if (w === 0) this.postings.delete(term);
    else list.length = w;
  }

  get size(): number {
    return this.live;
  }

  /** Rough heap bytes: postings (4-byte small integers, with growth slack) and the term keys. */
  approximateBytes(): number {
    return this.postingCount * 10 + this.postings.size * 64 + this.lengths.length * 4;
  }

  /** Scores of the documents matching at least one query term, unsorted. */
  score(query: string): Map<number, number> {
    const n = this.live;
    const avg = n ? this.totalLength / n : 0;
    const scores = new Map<number, number>();
    for (const t of new Set(termsWithPairs(query))) {
      const p = this.postings.get(t);
      if (p === undefined) continue;
      const list = unpack(p);
      const df = list.length / 2;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (let i = 0; i < list.length; i += 2) {
        const doc = list[i] as number;
        const tf = list[i + 1] as number;
        const len = this.lengths[doc] ?? 0;
        const s = (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * len) / (avg || 1)));
        scores.set(doc, (scores.get(doc) ?? 0) + s);
      }
    }
    return scores;
  }

  /** Inverse document frequency of a term (as scored above); unseen terms get the highest. */
  idf(term: string): number {
    const p = this.postings.get(term);
    const df = p === undefined ? 0 : typeof p === 'number' ? 1 : p.length / 2;
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
