/**
 * Passages for svc_ask: the paragraphs of the best sections that best match the question, each
 * with a citation (document, heading path, section id). Extractive only: no language model.
 */
import { buildBm25, scoreBm25 } from './bm25.ts';
import type { SearchHit } from './search.ts';

export interface Passage {
  text: string;
  doc: string;
  heading: string;
  path: string[];
  sectionId: string;
  score: number;
}

const HEADING_LINE = /^ {0,3}#{1,6}\s/;

/** Splits sections into paragraphs and ranks them against the query; at most `limit`. */
export function bestPassages(query: string, hits: SearchHit[], limit: number): Passage[] {
  const paragraphs: Omit<Passage, 'score'>[] = [];
  for (const h of hits) {
    for (const para of h.text.split(/\n\s*\n/)) {
      const text = para
        .split('\n')
        .filter((l) => !HEADING_LINE.test(l))
        .join('\n')
        .trim();
      if (text) paragraphs.push({ text, doc: h.doc, heading: h.heading, path: h.path, sectionId: h.id });
    }
  }
  const index = buildBm25(paragraphs.map((p) => ({ heading: p.path.join(' '), text: p.text })));
  const ranked = scoreBm25(index, query, limit).map((r) => ({ ...(paragraphs[r.doc] as Omit<Passage, 'score'>), score: r.score }));
  return ranked;
}
