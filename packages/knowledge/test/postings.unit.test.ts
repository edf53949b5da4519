/**
 * The inverted index's typed-array storage (docs/knowledge-tools.md "Index memory"): after any
 * series of adds and removals it holds exactly what a Map of Maps would; a BM25 index changed
 * incrementally scores exactly as one built afresh; terms hash as their strings would; and the
 * bounds on slots and term frequency hold.
 */
import assert from 'node:assert/strict';
import { PerformanceObserver } from 'node:perf_hooks';
import { test } from 'node:test';
import fc from 'fast-check';
import { Bm25 } from '../src/bm25.ts';
import { MAX_SLOTS, MAX_TF, PostingStore } from '../src/postings.ts';
import { TermTable } from '../src/term-table.ts';
import { termHash, termHashes, termsWithPairs } from '../src/text.ts';

type Model = Map<number, Map<number, number>>;

function contents(store: PostingStore, terms: Iterable<number>): Model {
  const out: Model = new Map();
  for (const t of terms) {
    const postings = new Map<number, number>();
    store.forEach(t, (slot, tf) => postings.set(slot, tf));
    assert.equal(store.count(t), postings.size);
    if (postings.size) out.set(t, postings);
  }
  return out;
}

// Few terms and slots, so chains, lone postings, probe runs and deletions inside them all occur:
// the terms share their top bits, so they land in one or two shards of the table.
const term = fc.tuple(fc.constantFrom(0, 0xff), fc.integer({ min: 0, max: 0xff_ffff })).map(([top, low]) => ((top << 24) | low) >>> 0);
const op = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), term: fc.nat(40), slot: fc.nat(12), tf: fc.integer({ min: 1, max: 5000 }) }),
  fc.record({ kind: fc.constant('remove' as const), term: fc.nat(40), slots: fc.uniqueArray(fc.nat(12), { maxLength: 6 }) }),
);

test('after any series of adds and removals the store holds what a Map of Maps would', () => {
  fc.assert(
    fc.property(fc.uniqueArray(term, { minLength: 41, maxLength: 41 }), fc.array(op, { minLength: 100, maxLength: 400 }), (terms, ops) => {
      const store = new PostingStore();
      const model: Model = new Map();
      for (const o of ops) {
        const t = terms[o.term] as number;
        const postings = model.get(t) ?? new Map<number, number>();
        if (o.kind === 'add') {
          if (postings.has(o.slot)) continue; // the caller adds one posting per slot and term
          store.add(t, o.slot, o.tf);
          model.set(t, postings.set(o.slot, Math.min(o.tf, MAX_TF)));
        } else {
          const before = postings.size;
          for (const s of o.slots) postings.delete(s);
          assert.equal(store.remove(t, new Set(o.slots)), before - postings.size);
          if (postings.size === 0) model.delete(t);
        }
      }
      assert.deepEqual(contents(store, terms), model);
      assert.equal(store.termCount, model.size);
    }),
    { numRuns: 300 },
  );
});

test('after any series of sets and deletes the term table holds what a Map would', () => {
  // Keys of one shard (equal top bits), many of them: long probe runs, growth, deletions inside runs.
  const key = fc.integer({ min: 0, max: 0xff_ffff }).map((low) => (0x5a00_0000 | low) >>> 0);
  const tableOp = fc.oneof(fc.record({ set: fc.nat(299), value: fc.integer({ min: 1, max: 1000 }) }), fc.record({ del: fc.nat(299) }));
  fc.assert(
    fc.property(
      fc.uniqueArray(key, { minLength: 300, maxLength: 300 }),
      fc.array(tableOp, { minLength: 500, maxLength: 1500 }),
      (keys, ops) => {
        const table = new TermTable();
        const model = new Map<number, number>();
        for (const o of ops) {
          if ('set' in o) {
            table.set(keys[o.set] as number, o.value);
            model.set(keys[o.set] as number, o.value);
          } else {
            table.delete(keys[o.del] as number);
            model.delete(keys[o.del] as number);
          }
        }
        assert.equal(table.size, model.size);
        for (const k of keys) assert.equal(table.get(k), model.get(k) ?? 0);
      },
    ),
    { numRuns: 100 },
  );
});

test('growing the term table never rehashes all of it at once: 3 million terms, no 1,000 inserts over 15 ms of CPU', async () => {
  // One table rehashed whole takes about 20 ms of CPU per million terms to grow, and a project of
  // 20 MB of text holds one to eight million terms; one shard holds 1/256 of them.
  const cpuMs = () => {
    const u = process.threadCpuUsage();
    return (u.user + u.system) / 1000;
  };
  // A garbage-collection pause inside a batch is the heap's doing, not a rehash: it is taken out,
  // as the loop guard does (docs/conventions.md "Tests"); the pauses reach the observer a turn later.
  const pauses: { start: number; end: number }[] = [];
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push({ start: e.startTime, end: e.startTime + e.duration });
  });
  gc.observe({ entryTypes: ['gc'] });
  const table = new TermTable();
  const batches: { start: number; end: number; cpu: number }[] = [];
  for (let batch = 0; batch < 3000; batch++) {
    const [start, startCpu] = [performance.now(), cpuMs()];
    for (let i = batch * 1000; i < (batch + 1) * 1000; i++) table.set(termHash(`w${i}`), 1);
    batches.push({ start, end: performance.now(), cpu: cpuMs() - startCpu });
  }
  await new Promise((done) => setImmediate(done));
  gc.disconnect();
  const inGc = (b: { start: number; end: number }) =>
    pauses.reduce((sum, p) => sum + Math.max(0, Math.min(b.end, p.end) - Math.max(b.start, p.start)), 0);
  const longest = Math.max(...batches.map((b) => b.cpu - inGc(b)));
  assert.ok(table.size > 2_998_000); // FNV-1a: about 1,000 collisions expected in 3 million
  assert.ok(longest < 15, `1,000 inserts took ${longest.toFixed(1)} ms of CPU, garbage collection taken out`);
});

test(`slots run from 0 to MAX_SLOTS - 1 (${MAX_SLOTS - 1}); a term frequency over MAX_TF (${MAX_TF}) counts ${MAX_TF}`, () => {
  const store = new PostingStore();
  store.add(7, MAX_SLOTS - 1, MAX_TF + 1000);
  store.add(7, 0, 1);
  assert.throws(() => store.add(7, MAX_SLOTS, 1), RangeError);
  assert.throws(() => store.add(7, -1, 1), RangeError);
  const seen: [number, number][] = [];
  store.forEach(7, (slot, tf) => seen.push([slot, tf]));
  assert.deepEqual(
    seen.sort((a, b) => a[0] - b[0]),
    [
      [0, 1],
      [MAX_SLOTS - 1, MAX_TF],
    ],
  );
});

test('a term hashes as its string; a pair as "<a>_<b>"', () => {
  const text = 'Refresh tokens rotate: the device code grant polls the token endpoint';
  assert.deepEqual(termHashes(text), termsWithPairs(text).map(termHash));
  assert.ok(termsWithPairs(text).includes('devic_cod'));
});

const WORDS = ['token', 'rotation', 'pelican', 'quota', 'refresh', 'device', 'code', 'session', 'replica', 'lease', 'w1', 'w2'];
const text = fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 30, size: 'max' }).map((w) => w.join(' '));
const doc = fc.record({ heading: fc.constantFrom(...WORDS), text });
const QUERIES = ['pelican quota', 'refresh token rotation', 'device code', 'session lease replica', 'w1 w2 token'];

test('a BM25 index changed incrementally scores exactly as one built afresh over the same documents', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat(9), doc), { minLength: 1, maxLength: 60, size: 'max' }), (steps) => {
      // Ten document names; each step replaces one (remove its slot, add into a free slot).
      const live = new Map<number, { slot: number; heading: string; text: string }>();
      const incremental = new Bm25();
      const free: number[] = [];
      let next = 0;
      for (const [name, d] of steps) {
        const old = live.get(name);
        if (old) {
          const terms: number[] = [];
          incremental.release(old.slot, old.heading, old.text, (t) => terms.push(t));
          for (const t of terms) incremental.purge(t, new Set([old.slot]));
          free.push(old.slot);
        }
        const slot = free.pop() ?? next++;
        incremental.add(slot, d.heading, d.text);
        live.set(name, { slot, ...d });
      }
      const fresh = new Bm25();
      for (const { slot, heading, text } of live.values()) fresh.add(slot, heading, text);
      assert.equal(incremental.size, fresh.size);
      for (const q of QUERIES) {
        assert.deepEqual(incremental.score(q), fresh.score(q), q);
        for (const w of q.split(' ')) assert.equal(incremental.idf(w), fresh.idf(w));
      }
    }),
    { numRuns: 300 },
  );
});
