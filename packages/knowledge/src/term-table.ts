/**
 * A hash table from 32-bit term hashes to non-zero 32-bit integers, in typed arrays only
 * (docs/knowledge-tools.md "Index memory"). Open addressing with linear probing and backward-shift
 * deletion (no tombstones), split in 256 shards by the hash's top bits, each allocated at first
 * use and doubled on its own: growing rehashes one shard, never the whole table, so no single
 * insert holds the event loop however many terms a project has.
 */

/** A table is 2^SHARD_BITS = 256 shards, chosen by the hash's top bits. */
const SHARD_BITS = 8;
/** A shard doubles when more than this share of its cells is used. */
const MAX_LOAD = 0.75;
const INITIAL_CELLS = 8;

interface Shard {
  keys: Uint32Array;
  /** 0: an empty cell. */
  values: Int32Array;
  /** 32 - log2(cells): the home cell is the top bits of the mixed key. */
  shift: number;
  used: number;
}

/** Fibonacci hashing: the top bits of the key times 2^32 / phi spread any key pattern. */
function home(shard: Shard, key: number): number {
  return Math.imul(key, 0x9e3779b1) >>> shard.shift;
}

/** The cell holding `key`, or the empty cell where it would go. */
function find(shard: Shard, key: number): number {
  const mask = shard.keys.length - 1;
  let cell = home(shard, key);
  while (shard.values[cell] !== 0 && shard.keys[cell] !== key) cell = (cell + 1) & mask;
  return cell;
}

function newShard(cells: number): Shard {
  return { keys: new Uint32Array(cells), values: new Int32Array(cells), shift: 32 - Math.log2(cells), used: 0 };
}

export class TermTable {
  private readonly shards: (Shard | undefined)[] = [];
  private count = 0;
  private cellBytes = 0;

  get size(): number {
    return this.count;
  }

  /** Bytes of the shards' typed arrays (capacity, not use: this is what the heap holds). */
  get bytes(): number {
    return this.cellBytes;
  }

  /** The value of `key`; 0 when absent. */
  get(key: number): number {
    const shard = this.shards[key >>> (32 - SHARD_BITS)];
    return shard ? (shard.values[find(shard, key)] as number) : 0;
  }

  /** Sets `key` to `value` (not 0: delete() removes a key). */
  set(key: number, value: number): void {
    const s = key >>> (32 - SHARD_BITS);
    let shard = this.shards[s];
    if (!shard) {
      this.shards[s] = shard = newShard(INITIAL_CELLS);
      this.cellBytes += INITIAL_CELLS * 8;
    }
    let cell = find(shard, key);
    if (shard.values[cell] === 0) {
      if ((shard.used + 1) / shard.keys.length > MAX_LOAD) {
        shard = this.grow(s, shard);
        cell = find(shard, key);
      }
      shard.keys[cell] = key;
      shard.used++;
      this.count++;
    }
    shard.values[cell] = value;
  }

  /** Removes `key`, moving later entries of its probe run back (Knuth, TAOCP 6.4, Algorithm R). */
  delete(key: number): void {
    const shard = this.shards[key >>> (32 - SHARD_BITS)];
    if (!shard) return;
    let hole = find(shard, key);
    if (shard.values[hole] === 0) return;
    const mask = shard.keys.length - 1;
    for (let j = (hole + 1) & mask; shard.values[j] !== 0; j = (j + 1) & mask) {
      const h = home(shard, shard.keys[j] as number);
      // The entry at j may move to the hole unless its home lies cyclically in (hole, j].
      if (hole <= j ? hole < h && h <= j : hole < h || h <= j) continue;
      shard.keys[hole] = shard.keys[j] as number;
      shard.values[hole] = shard.values[j] as number;
      hole = j;
    }
    shard.values[hole] = 0;
    shard.used--;
    this.count--;
  }

  private grow(s: number, old: Shard): Shard {
    const shard = newShard(old.keys.length * 2);
    for (let i = 0; i < old.keys.length; i++) {
      if (old.values[i] === 0) continue;
      const cell = find(shard, old.keys[i] as number);
      shard.keys[cell] = old.keys[i] as number;
      shard.values[cell] = old.values[i] as number;
    }
    shard.used = old.used;
    this.shards[s] = shard;
    this.cellBytes += old.keys.length * 8;
    return shard;
  }
}
