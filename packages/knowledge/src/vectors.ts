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

  /**
   * Calls `visit(slot, cosine)` for every slot holding a vector, page by page: no per-slot lookup
   * of the page, and the dot product unrolled by four (the scan hybrid search makes over every
   * section, docs/benchmarks.md "Search and ingestion at scale"). Work that yields after each page
   * (slicer.ts runInSlices): 10,000 sections of 512 dimensions took 15 ms in one turn, 36-51 ms the
   * first time. The pool must not change until it is done.
   */
  *dotting(q: Float32Array, visit: (slot: number, score: number) => void): Generator<void, void> {
    const dim = this.dim;
    if (dim === 0 || q.length < dim) return;
    const n4 = dim - (dim % 4);
    for (let p = 0; p < this.pages.length; p++) {
      const page = this.pages[p] as Int8Array;
      for (let i = 0; i < PAGE_SLOTS; i++) {
        const slot = p * PAGE_SLOTS + i;
        const scale = this.scales[slot] ?? -1;
        if (scale < 0) continue;
        const base = i * dim;
        let s0 = 0;
        let s1 = 0;
        let s2 = 0;
        let s3 = 0;
        let j = 0;
        for (; j < n4; j += 4) {
          s0 += (q[j] as number) * (page[base + j] as number);
          s1 += (q[j + 1] as number) * (page[base + j + 1] as number);
          s2 += (q[j + 2] as number) * (page[base + j + 2] as number);
          s3 += (q[j + 3] as number) * (page[base + j + 3] as number);
        }
        for (; j < dim; j++) s0 += (q[j] as number) * (page[base + j] as number);
        visit(slot, (s0 + s1 + s2 + s3) * scale);
      }
      yield;
    }
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
