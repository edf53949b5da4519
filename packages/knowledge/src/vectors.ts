/**
 * Section vectors of one project, int8-quantised, with one float scale per slot: 1 byte a
 * dimension instead of 4, and no object per vector (docs/knowledge-tools.md "Index memory").
 * Vectors sit in pages of PAGE_SLOTS slots, allocated as slots are first used: a project's
 * vectors take at most one page more than they need (a doubling array takes up to twice) and
 * growing never copies. Quantising loses under 1% of a cosine, far below the gap between a match
 * and the next section; the search-quality test holds it to that.
 */

/** Slots per page of vectors: 128 KiB for the local embedder's 512 dimensions. */
const PAGE_SLOTS = 256;

export class VectorPool {
  private dim = 0;
  private readonly pages: Int8Array[] = [];
  /** Scale per slot; -1: no vector. */
  private scales = new Float32Array(0);

  /** Stores `v` (L2-normalised) in `slot`; a vector of another dimension than the first is left out. */
  set(slot: number, v: Float32Array): void {
    if (this.dim === 0) this.dim = v.length;
    if (v.length !== this.dim || this.dim === 0) return this.clear(slot);
    this.reserve(slot);
    let max = 0;
    for (const x of v) max = Math.max(max, Math.abs(x));
    const scale = max / 127;
    const page = this.pages[Math.floor(slot / PAGE_SLOTS)] as Int8Array;
    const base = (slot % PAGE_SLOTS) * this.dim;
    for (let i = 0; i < this.dim; i++) page[base + i] = scale ? Math.round((v[i] ?? 0) / scale) : 0;
    this.scales[slot] = scale;
  }

  /** Marks `slot` as having no vector. */
  clear(slot: number): void {
    if (slot < this.scales.length) this.scales[slot] = -1;
  }

  has(slot: number): boolean {
    return (this.scales[slot] ?? -1) >= 0;
  }

  /** Dot product of `q` with the slot's vector (the cosine: both are normalised). */
  dot(q: Float32Array, slot: number): number {
    const scale = this.scales[slot] ?? -1;
    if (scale < 0) return 0;
    const page = this.pages[Math.floor(slot / PAGE_SLOTS)] as Int8Array;
    const n = Math.min(q.length, this.dim);
    const base = (slot % PAGE_SLOTS) * this.dim;
    let s = 0;
    for (let i = 0; i < n; i++) s += (q[i] as number) * (page[base + i] as number);
    return s * scale;
  }

  approximateBytes(): number {
    return this.pages.length * PAGE_SLOTS * this.dim + this.scales.byteLength;
  }

  private reserve(slot: number): void {
    while (this.pages.length <= Math.floor(slot / PAGE_SLOTS)) this.pages.push(new Int8Array(PAGE_SLOTS * this.dim));
    if (slot < this.scales.length) return;
    const scales = new Float32Array(this.pages.length * PAGE_SLOTS).fill(-1);
    scales.set(this.scales);
    this.scales = scales;
  }
}
