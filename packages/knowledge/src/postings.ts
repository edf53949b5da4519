/**
 * The inverted index's storage, in typed arrays and nothing else: no string, array or object per
 * term (docs/knowledge-tools.md "Index memory"). A term is its 32-bit hash (text.ts termHash); a
 * table with open addressing (linear probing, backward-shift deletion, no tombstones) maps it to
 * its postings. A term found in one section only (most word pairs) keeps its one posting in the
 * table cell itself; longer lists are chains of 8-byte nodes in one shared pool, freed nodes
 * reused. A posting packs its slot and term frequency in 31 bits.
 */

const TF_BITS = 12;
/** A term counted more often in one section counts this often (BM25 has all but saturated: under 0.1%). */
export const MAX_TF = (1 << TF_BITS) - 1;
/** Slots an index can number: 19 bits, far above a project's section limit (documents.ts LIMITS). */
export const MAX_SLOTS = 1 << (31 - TF_BITS);
/** The term table doubles when more than this share of its cells is used. */
const MAX_LOAD = 0.75;
const INITIAL_CELLS = 16;
/** The node pool grows by half when full: at most a third of it idle, where doubling leaves half. */
const POOL_GROWTH = 1.5;
/** End of a chain of nodes. */
const NIL = -1;

export class PostingStore {
  /** Term hash per cell. */
  private keys = new Uint32Array(INITIAL_CELLS);
  /** Per cell: 0 empty; > 0 the first node of the term's chain plus one; < 0 its lone posting, -(posting + 1). */
  private heads = new Int32Array(INITIAL_CELLS);
  private shift = 32 - Math.log2(INITIAL_CELLS);
  private terms = 0;
  /** Node n: pool[2n] its posting, pool[2n + 1] the next node of the chain or NIL. */
  private pool = new Int32Array(0);
  /** Nodes ever handed out; those freed since are chained from `free`. */
  private top = 0;
  private free = NIL;

  get termCount(): number {
    return this.terms;
  }

  /** Bytes of the typed arrays (capacity, not use: this is what the heap holds). */
  get bytes(): number {
    return this.keys.byteLength + this.heads.byteLength + this.pool.byteLength;
  }

  /** Adds a posting of `slot` to `term`; the caller adds at most one per slot and term. */
  add(term: number, slot: number, tf: number): void {
    if (!Number.isInteger(slot) || slot < 0 || slot >= MAX_SLOTS) throw new RangeError(`slot ${slot} is outside 0..${MAX_SLOTS - 1}`);
    const posting = (slot << TF_BITS) | Math.min(tf, MAX_TF);
    let cell = this.find(term);
    const head = this.heads[cell] as number;
    if (head === 0) {
      if ((this.terms + 1) / this.keys.length > MAX_LOAD) {
        this.grow();
        cell = this.find(term);
      }
      this.keys[cell] = term;
      this.heads[cell] = -(posting + 1);
      this.terms++;
      return;
    }
    const rest = head < 0 ? this.node(-head - 1, NIL) : head - 1;
    this.heads[cell] = this.node(posting, rest) + 1;
  }

  /** Drops the postings of `slots` from `term`; returns how many it dropped. */
  remove(term: number, slots: ReadonlySet<number>): number {
    const cell = this.find(term);
    const head = this.heads[cell] as number;
    if (head === 0) return 0;
    if (head < 0) {
      if (!slots.has((-head - 1) >>> TF_BITS)) return 0;
      this.deleteCell(cell);
      return 1;
    }
    let first = NIL;
    let last = NIL;
    let kept = 0;
    let dropped = 0;
    for (let n = head - 1; n !== NIL;) {
      const next = this.pool[2 * n + 1] as number;
      if (slots.has((this.pool[2 * n] as number) >>> TF_BITS)) {
        this.release(n);
        dropped++;
      } else {
        if (last === NIL) first = n;
        else this.pool[2 * last + 1] = n;
        last = n;
        kept++;
      }
      n = next;
    }
    if (kept === 0) this.deleteCell(cell);
    else if (kept === 1) {
      // Back to a lone posting, as a fresh index holding the same sections would have it.
      this.heads[cell] = -((this.pool[2 * first] as number) + 1);
      this.release(first);
    } else {
      this.pool[2 * last + 1] = NIL;
      this.heads[cell] = first + 1;
    }
    return dropped;
  }

  /** Number of postings of `term` (its document frequency). */
  count(term: number): number {
    const head = this.heads[this.find(term)] as number;
    if (head <= 0) return head === 0 ? 0 : 1;
    let df = 0;
    for (let n = head - 1; n !== NIL; n = this.pool[2 * n + 1] as number) df++;
    return df;
  }

  /** Calls `fn` with each posting of `term` (in no particular order). */
  forEach(term: number, fn: (slot: number, tf: number) => void): void {
    const head = this.heads[this.find(term)] as number;
    if (head === 0) return;
    if (head < 0) return void fn((-head - 1) >>> TF_BITS, (-head - 1) & MAX_TF);
    for (let n = head - 1; n !== NIL; n = this.pool[2 * n + 1] as number) {
      const p = this.pool[2 * n] as number;
      fn(p >>> TF_BITS, p & MAX_TF);
    }
  }

  /** The cell holding `term`, or the empty cell where it would go. */
  private find(term: number): number {
    const mask = this.keys.length - 1;
    let cell = this.home(term);
    while (this.heads[cell] !== 0 && this.keys[cell] !== term) cell = (cell + 1) & mask;
    return cell;
  }

  /** Fibonacci hashing: the top bits of the key times 2^32 / phi spread any key pattern. */
  private home(term: number): number {
    return Math.imul(term, 0x9e3779b1) >>> this.shift;
  }

  /** Empties `cell` and moves later entries of its probe run back (Knuth, TAOCP 6.4, Algorithm R). */
  private deleteCell(cell: number): void {
    const mask = this.keys.length - 1;
    let hole = cell;
    for (let j = (hole + 1) & mask; this.heads[j] !== 0; j = (j + 1) & mask) {
      const home = this.home(this.keys[j] as number);
      // The entry at j may move to the hole unless its home lies cyclically in (hole, j].
      const stays = hole <= j ? hole < home && home <= j : hole < home || home <= j;
      if (stays) continue;
      this.keys[hole] = this.keys[j] as number;
      this.heads[hole] = this.heads[j] as number;
      hole = j;
    }
    this.heads[hole] = 0;
    this.terms--;
  }

  private grow(): void {
    const keys = this.keys;
    const heads = this.heads;
    this.keys = new Uint32Array(keys.length * 2);
    this.heads = new Int32Array(keys.length * 2);
    this.shift--;
    for (let i = 0; i < keys.length; i++) {
      if (heads[i] === 0) continue;
      const cell = this.find(keys[i] as number);
      this.keys[cell] = keys[i] as number;
      this.heads[cell] = heads[i] as number;
    }
  }

  /** A node holding `posting` followed by `next`. */
  private node(posting: number, next: number): number {
    let n = this.free;
    if (n !== NIL) this.free = this.pool[2 * n + 1] as number;
    else {
      if (2 * this.top === this.pool.length) {
        const pool = new Int32Array(Math.max(2 * INITIAL_CELLS, 2 * Math.ceil((this.pool.length * POOL_GROWTH) / 2)));
        pool.set(this.pool);
        this.pool = pool;
      }
      n = this.top++;
    }
    this.pool[2 * n] = posting;
    this.pool[2 * n + 1] = next;
    return n;
  }

  private release(n: number): void {
    this.pool[2 * n + 1] = this.free;
    this.free = n;
  }
}
