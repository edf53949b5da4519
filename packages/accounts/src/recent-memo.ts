/**
 * A memo of a pure function of a string, for values asked for again within moments (one grant
 * takes a token's digest in several steps; each grant of a service account checks the same stored
 * keys). It holds at most `max` keys of at most `maxKeyLength` characters (longer keys are computed
 * each time), the older half dropped when it is full. A miss only computes again, so the memo is no
 * share one caller can take from another (docs/security.md "Shared pools, per-tenant shares").
 */
export interface RecentMemoBounds {
  /** Keys held at most. */
  max: number;
  /** Longer keys are never kept. */
  maxKeyLength: number;
}

export function recentMemo<V>(compute: (key: string) => V, bounds: RecentMemoBounds): (key: string) => V {
  const kept = new Map<string, V>();
  return (key) => {
    if (key.length > bounds.maxKeyLength) return compute(key);
    if (kept.has(key)) return kept.get(key)!;
    const value = compute(key);
    if (kept.size >= bounds.max) {
      let drop = Math.ceil(bounds.max / 2);
      for (const old of kept.keys()) {
        kept.delete(old);
        if (--drop === 0) break;
      }
    }
    kept.set(key, value);
    return value;
  };
}
