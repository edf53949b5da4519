/**
 * The inverted index's storage, in typed arrays and nothing else: no string, array or object per
 * term (docs/knowledge-tools.md "Index memory"). A term is its 32-bit hash (text.ts termHash); a
 * TermTable maps it to its postings. A term found in one section only (most word pairs) keeps its
 * one posting in the table itself; longer lists are chains of 8-byte nodes in one pool, in pages
 * (growing never copies), freed nodes reused. A posting packs its slot and term frequency in 31 bits.
 */
import { TermTable } from './term-table.ts';

const TF_BITS = 12;
/** A term counted more often in one section counts this often (BM25 has all but saturated: under 0.1%). */
export const MAX_TF = (1 << TF_BITS) - 1;
/** Slots an index can number: 19 bits, far above a project's section limit (documents.ts LIMITS). */
export const MAX_SLOTS = 1 << (31 - TF_BITS);
/** Nodes per page of the pool (2^15 nodes, 256 KiB); the first page grows by doubling up to it. */
const PAGE_BITS = 15;
const PAGE_NODES = 1 << PAGE_BITS;
const FIRST_PAGE_NODES = 16;
/** End of a chain of nodes. */
const NIL = -1;

/**
 * Table values: > 0 the first node of the term's chain plus one; < 0 its lone posting,
 * -(posting + 1).
 */
export class PostingStore {
  private readonly terms = new TermTable();
  /** Node n: page[2i] its posting, page[2i + 1] the next node of the chain or NIL (n = page * PAGE_NODES + i). */
  private readonly pages: Int32Array[] = [];
  /** Nodes ever handed out; those freed since are chained from `free`. */
  private top = 0;
  private free = NIL;

  get termCount(): number {
    return this.terms.size;
  }

  /** Bytes of the typed arrays (capacity, not use: this is what the heap holds). */
  get bytes(): number {
    let pool = 0;
    for (const p of this.pages) pool += p.byteLength;
    return this.terms.bytes + pool;
  }

  /** Adds a posting of `slot` to `term`; the caller adds at most one per slot and term. */
  add(term: number, slot: number, tf: number): void {
    if (!Number.isInteger(slot) || slot < 0 || slot >= MAX_SLOTS) throw new RangeError(`slot ${slot} is outside 0..${MAX_SLOTS - 1}`);
    const posting = (slot << TF_BITS) | Math.min(tf, MAX_TF);
    const head = this.terms.get(term);
    if (head === 0) return this.terms.set(term, -(posting + 1));
    const rest = head < 0 ? this.node(-head - 1, NIL) : head - 1;
    this.terms.set(term, this.node(posting, rest) + 1);
  }

  /** Drops the postings of `slots` from `term`; returns how many it dropped. */
  remove(term: number, slots: ReadonlySet<number>): number {
    const head = this.terms.get(term);
    if (head === 0) return 0;
    if (head < 0) {
      if (!slots.has((-head - 1) >>> TF_BITS)) return 0;
      this.terms.delete(term);
      return 1;
    }
    let first = NIL;
    let last = NIL;
    let kept = 0;
    let dropped = 0;
    for (let n = head - 1; n !== NIL;) {
      const next = this.next(n);
      if (slots.has(this.posting(n) >>> TF_BITS)) {
        this.release(n);
        dropped++;
      } else {
        if (last === NIL) first = n;
        else this.link(last, n);
        last = n;
        kept++;
      }
      n = next;
    }
    if (kept === 0) this.terms.delete(term);
    else if (kept === 1) {
      // Back to a lone posting, as a fresh index holding the same sections would have it.
      this.terms.set(term, -(this.posting(first) + 1));
      this.release(first);
    } else {
      this.link(last, NIL);
      this.terms.set(term, first + 1);
    }
    return dropped;
  }

  /** Number of postings of `term` (its document frequency). */
  count(term: number): number {
    const head = this.terms.get(term);
    if (head <= 0) return head === 0 ? 0 : 1;
    let df = 0;
    for (let n = head - 1; n !== NIL; n = this.next(n)) df++;
    return df;
  }

  /** Calls `fn` with each posting of `term` (in no particular order). */
  forEach(term: number, fn: (slot: number, tf: number) => void): void {
    const head = this.terms.get(term);
    if (head === 0) return;
    if (head < 0) return void fn((-head - 1) >>> TF_BITS, (-head - 1) & MAX_TF);
    for (let n = head - 1; n !== NIL; n = this.next(n)) {
      const p = this.posting(n);
      fn(p >>> TF_BITS, p & MAX_TF);
    }
  }

  private posting(n: number): number {
    return (this.pages[n >>> PAGE_BITS] as Int32Array)[2 * (n & (PAGE_NODES - 1))] as number;
  }

  private next(n: number): number {
    return (this.pages[n >>> PAGE_BITS] as Int32Array)[2 * (n & (PAGE_NODES - 1)) + 1] as number;
  }

  private link(n: number, next: number): void {
    (this.pages[n >>> PAGE_BITS] as Int32Array)[2 * (n & (PAGE_NODES - 1)) + 1] = next;
  }

  /** A node holding `posting` followed by `next`. */
  private node(posting: number, next: number): number {
    let n = this.free;
    if (n !== NIL) this.free = this.next(n);
    else {
      n = this.top++;
      this.reserve(n);
    }
    const page = this.pages[n >>> PAGE_BITS] as Int32Array;
    page[2 * (n & (PAGE_NODES - 1))] = posting;
    page[2 * (n & (PAGE_NODES - 1)) + 1] = next;
    return n;
  }

  /** Makes room for node `n`, the next never handed out. */
  private reserve(n: number): void {
    const p = n >>> PAGE_BITS;
    const page = this.pages[p];
    if (page && 2 * (n & (PAGE_NODES - 1)) < page.length) return;
    if (!page) {
      this.pages.push(new Int32Array(2 * (p === 0 ? FIRST_PAGE_NODES : PAGE_NODES)));
      return;
    }
    // Only the first page is ever short: it doubles up to a full page.
    const grown = new Int32Array(Math.min(2 * page.length, 2 * PAGE_NODES));
    grown.set(page);
    this.pages[p] = grown;
  }

  private release(n: number): void {
    this.link(n, this.free);
    this.free = n;
  }
}
