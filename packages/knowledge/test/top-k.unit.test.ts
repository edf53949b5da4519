/**
 * The bounded heap search keeps its best k in (src/top-k.ts) against the full sort it replaced:
 * the same slots in the same order, ties broken by the index's order, for k below, at and above
 * the number of candidates.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TopK } from '../src/top-k.ts';
import { prng } from '../../../bench/search-memory.ts';

/** Ties by a shuffled order of slots, as ProjectIndex.compare orders by document name. */
function tieOrder(n: number, rand: () => number): (a: number, b: number) => number {
  const rank = Array.from({ length: n }, (_, i) => i).sort(() => rand() - 0.5);
  return (a, b) => (rank[a] as number) - (rank[b] as number);
}

test('the bounded heap keeps what a full sort keeps, in its order, ties included', () => {
  const rand = prng(3);
  for (const n of [0, 1, 7, 100, 5_000]) {
    // Scores of few distinct values, so most comparisons are ties.
    const scores = Array.from({ length: n }, () => Math.floor(rand() * 20) / 4);
    const cmp = tieOrder(n, rand);
    const full = scores.map((score, doc) => ({ doc, score })).sort((a, b) => b.score - a.score || cmp(a.doc, b.doc));
    for (const k of [0, 1, 5, 50, n, n + 3]) {
      const top = new TopK(k, (a, b) => cmp(a, b) < 0);
      scores.forEach((score, doc) => top.offer(doc, score));
      assert.deepEqual(top.sorted(), full.slice(0, k), `n ${n}, k ${k}`);
    }
  }
});
