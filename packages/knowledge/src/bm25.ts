/**
 * Okapi BM25 over an in-memory inverted index (k1 = 1.2, b = 0.75, the usual defaults; idf as in
 * Lucene, never negative). Heading words count twice: a section titled "Refresh Tokens" is more
 * about refresh tokens than one that mentions them once.
 */
import { termFrequencies, termsWithPairs } from './text.ts';

const K1 = 1.2;
const B = 0.75;

export interface Bm25Index {
  postings: Map<string, { doc: number; tf: number }[]>;
  lengths: number[];
  avgLength: number;
}

export function buildBm25(docs: { heading: string; text: string }[]): Bm25Index {
  const postings = new Map<string, { doc: number; tf: number }[]>();
  const lengths: number[] = [];
  docs.forEach((d, i) => {
    const ts = [...termsWithPairs(d.heading), ...termsWithPairs(d.heading), ...termsWithPairs(d.text)];
    lengths.push(ts.length);
    for (const [t, tf] of termFrequencies(ts)) {
      let list = postings.get(t);
      if (!list) postings.set(t, (list = []));
      list.push({ doc: i, tf });
    }
  });
  const avgLength = lengths.length ? lengths.reduce((a, b) => a + b, 0) / lengths.length : 0;
  return { postings, lengths, avgLength };
}

/** Scores of the documents matching at least one query term, best first. */
export function scoreBm25(index: Bm25Index, query: string, limit: number): { doc: number; score: number }[] {
  const n = index.lengths.length;
  const scores = new Map<number, number>();
  for (const t of new Set(termsWithPairs(query))) {
    const list = index.postings.get(t);
    if (!list) continue;
    const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
    for (const { doc, tf } of list) {
      const len = index.lengths[doc] ?? 0;
      const s = (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * len) / (index.avgLength || 1)));
      scores.set(doc, (scores.get(doc) ?? 0) + s);
    }
  }
  return top(
    [...scores].map(([doc, score]) => ({ doc, score })),
    limit,
  );
}

/** Inverse document frequency of a term in the index (as scored above); unseen terms get the highest. */
export function idfOf(index: Bm25Index, term: string): number {
  const n = index.lengths.length;
  const df = index.postings.get(term)?.length ?? 0;
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

export function top<T extends { score: number; doc: number }>(items: T[], limit: number): T[] {
  return items.sort((a, b) => b.score - a.score || a.doc - b.doc).slice(0, limit);
}
