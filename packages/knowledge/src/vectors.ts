/**
 * Section vectors of one project, int8-quantised in one contiguous array (slot * dim), with one
 * float scale per slot: 1 byte a dimension instead of 4, and no object per vector
 * (docs/knowledge-tools.md "Index memory"). Quantising loses under 1% of a cosine, far below the gap
 * between a match and the next section; the search-quality test holds it to that.
 */

export class VectorPool {
  private dim = 0;
  private data = new Int8Array(0);
  private scales = new Float32Array(0);

  /** Stores `v` (L2-normalised) in `slot`; a vector of another dimension than the first is left out. */
  set(slot: number, v: Float32Array): void {
    if (this.dim === 0) this.dim = v.length;
    if (v.length !== this.dim || this.dim === 0) return this.clear(slot);
    this.reserve(slot + 1);
    let max = 0;
    for (const x of v) max = Math.max(max, Math.abs(x));
    const scale = max / 127;
    const base = slot * this.dim;
    for (let i = 0; i < this.dim; i++) this.data[base + i] = scale ? Math.round((v[i] ?? 0) / scale) : 0;
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
    const n = Math.min(q.length, this.dim);
    const base = slot * this.dim;
    let s = 0;
    for (let i = 0; i < n; i++) s += (q[i] as number) * (this.data[base + i] as number);
    return s * scale;
  }

  approximateBytes(): number {
    return this.data.byteLength + this.scales.byteLength;
  }

  private reserve(slots: number): void {
    if (slots <= this.scales.length) return;
    const cap = Math.max(slots, this.scales.length * 2, 16);
    const data = new Int8Array(cap * this.dim);
    data.set(this.data);
    const scales = new Float32Array(cap).fill(-1);
    scales.set(this.scales);
    this.data = data;
    this.scales = scales;
  }
}
