/**
 * The k best of a stream of scored slots, in a bounded binary heap whose root is the worst kept
 * (docs/knowledge-tools.md "Search"): O(n log k) for n candidates instead of sorting all n, and
 * no object per candidate. `before(a, b)` orders equal scores (true: slot a ranks first), so the
 * result is the first k of a full sort by (score descending, before).
 */
export class TopK {
  private readonly slots: Int32Array;
  private readonly scores: Float64Array;
  private n = 0;
  private readonly k: number;
  private readonly before: (a: number, b: number) => boolean;

  constructor(k: number, before: (a: number, b: number) => boolean) {
    this.k = k;
    this.before = before;
    this.slots = new Int32Array(Math.max(0, k));
    this.scores = new Float64Array(Math.max(0, k));
  }

  /** True when (sa, a) ranks below (sb, b). */
  private worse(sa: number, a: number, sb: number, b: number): boolean {
    return sa < sb || (sa === sb && this.before(b, a));
  }

  offer(slot: number, score: number): void {
    if (this.n < this.k) {
      let i = this.n++;
      // Sift up: the parent must be worse than (or as bad as) its children.
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!this.worse(score, slot, this.scores[p] as number, this.slots[p] as number)) break;
        this.slots[i] = this.slots[p] as number;
        this.scores[i] = this.scores[p] as number;
        i = p;
      }
      this.slots[i] = slot;
      this.scores[i] = score;
      return;
    }
    if (this.k === 0 || !this.worse(this.scores[0] as number, this.slots[0] as number, score, slot)) return;
    // Replace the root and sift down.
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.n) break;
      const r = l + 1;
      let c = l;
      if (r < this.n && this.worse(this.scores[r] as number, this.slots[r] as number, this.scores[l] as number, this.slots[l] as number))
        c = r;
      if (!this.worse(this.scores[c] as number, this.slots[c] as number, score, slot)) break;
      this.slots[i] = this.slots[c] as number;
      this.scores[i] = this.scores[c] as number;
      i = c;
    }
    this.slots[i] = slot;
    this.scores[i] = score;
  }

  /** The kept slots, best first. */
  sorted(): { doc: number; score: number }[] {
    const out: { doc: number; score: number }[] = [];
    for (let i = 0; i < this.n; i++) out.push({ doc: this.slots[i] as number, score: this.scores[i] as number });
    return out.sort((a, b) => b.score - a.score || (this.before(a.doc, b.doc) ? -1 : this.before(b.doc, a.doc) ? 1 : 0));
  }
}
