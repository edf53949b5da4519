/**
 * Counts of 32-bit hashes (a text's terms for BM25, its features for the local embedder), in
 * typed arrays reused from one text to the next: counting allocates no Map entry, string or heap
 * number per key. A Map of strings per text was most of what an upload allocated
 * (docs/knowledge-tools.md "Allocation"), and collecting that garbage paused every tenant's
 * requests.
 *
 * Keys keep the order in which they were first counted, so what is built from them (a vector summed
 * in that order, postings added in that order) is the same as from a Map in insertion order. One
 * instance serves one synchronous count at a time: `clear()`, `add()` the text's hashes, read them.
 */

/** Keys a cleared table keeps room for; a larger table (a very long text) is given back. */
const KEPT_KEYS = 1 << 14;

export class HashCounts {
  /** Open addressing with linear probing: 0 for an empty place, else the key's index + 1. */
  private table = new Int32Array(1024);
  /** By index: the key, where it sits in `table`, its count, its largest weight and its kind. */
  private keys = new Uint32Array(512);
  private places = new Int32Array(512);
  private counts = new Int32Array(512);
  private weights = new Float64Array(512);
  private kinds = new Uint8Array(512);
  /** Distinct keys counted since the last clear. */
  size = 0;

  /** Counts `hash` once more, keeping the largest `weight` (at least 0) given for it and the `kind` it was first given. */
  add(hash: number, weight = 1, kind = 0): void {
    const key = hash >>> 0;
    const mask = this.table.length - 1;
    let place = (key ^ (key >>> 16)) & mask;
    for (let at = this.table[place] as number; at !== 0; at = this.table[place] as number) {
      const i = at - 1;
      if (this.keys[i] === key) {
        this.counts[i] = (this.counts[i] as number) + 1;
        if (weight > (this.weights[i] as number)) this.weights[i] = weight;
        return;
      }
      place = (place + 1) & mask;
    }
    if (this.size === this.keys.length) this.growKeys();
    const i = this.size++;
    this.table[place] = i + 1;
    this.keys[i] = key;
    this.places[i] = place;
    this.counts[i] = 1;
    this.weights[i] = Math.max(0, weight);
    this.kinds[i] = kind;
    if (this.size * 2 > this.table.length) this.rehash(this.table.length * 2);
  }

  key(i: number): number {
    return this.keys[i] as number;
  }

  count(i: number): number {
    return this.counts[i] as number;
  }

  weight(i: number): number {
    return this.weights[i] as number;
  }

  kind(i: number): number {
    return this.kinds[i] as number;
  }

  /** Empties the counts for the next text: the places used, not the whole table. */
  clear(): void {
    if (this.size > KEPT_KEYS) {
      this.table = new Int32Array(1024);
      this.keys = new Uint32Array(512);
      this.places = new Int32Array(512);
      this.counts = new Int32Array(512);
      this.weights = new Float64Array(512);
      this.kinds = new Uint8Array(512);
    } else for (let i = 0; i < this.size; i++) this.table[this.places[i] as number] = 0;
    this.size = 0;
  }

  private growKeys(): void {
    const n = this.keys.length * 2;
    const grown = <T extends Uint32Array | Int32Array | Float64Array | Uint8Array>(a: T, b: T): T => (b.set(a), b);
    this.keys = grown(this.keys, new Uint32Array(n));
    this.places = grown(this.places, new Int32Array(n));
    this.counts = grown(this.counts, new Int32Array(n));
    this.weights = grown(this.weights, new Float64Array(n));
    this.kinds = grown(this.kinds, new Uint8Array(n));
  }

  private rehash(capacity: number): void {
    this.table = new Int32Array(capacity);
    const mask = capacity - 1;
    for (let i = 0; i < this.size; i++) {
      const key = this.keys[i] as number;
      let place = (key ^ (key >>> 16)) & mask;
      while (this.table[place] !== 0) place = (place + 1) & mask;
      this.table[place] = i + 1;
      this.places[i] = place;
    }
  }
}
