/**
 * The memo of recent values (src/recent-memo.ts): whatever keys are asked in whatever order, each
 * answer is the function's own, the memo never holds more than its bound nor a key past the
 * length bound, and a key asked again right away is not computed twice.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { recentMemo } from '../src/recent-memo.ts';

test('a memo answers as the function does, within its bounds, across evictions', () => {
  fc.assert(
    fc.property(
      // Few distinct keys of many lengths, so that keys come back after being let go.
      fc.array(
        fc.nat(60).map((n) => 'k'.repeat(n % 9) + String(n)),
        { minLength: 1, maxLength: 400 },
      ),
      fc.integer({ min: 1, max: 40 }),
      fc.integer({ min: 0, max: 12 }),
      (keys, max, maxKeyLength) => {
        const computed = new Map<string, number>();
        const held = new Set<string>();
        const memo = recentMemo(
          (key: string) => {
            computed.set(key, (computed.get(key) ?? 0) + 1);
            return `${key}|${key.length}`;
          },
          { max, maxKeyLength },
        );
        for (const key of keys) {
          const before = computed.get(key) ?? 0;
          assert.equal(memo(key), `${key}|${key.length}`);
          const computedNow = (computed.get(key) ?? 0) > before;
          // Kept keys are not computed again, and keys the memo let go are: it holds no more than its bound.
          assert.equal(computedNow, !held.has(key), `${JSON.stringify(key)}: computed ${computedNow}, kept ${held.has(key)}`);
          assert.equal(memo(key), `${key}|${key.length}`);
          if (key.length <= maxKeyLength) assert.equal(computed.get(key), before + (computedNow ? 1 : 0), 'asked again at once: kept');
          // What the memo holds now, as a model: the older half goes when it is full.
          if (key.length <= maxKeyLength && computedNow) {
            if (held.size >= max) [...held].slice(0, Math.ceil(max / 2)).forEach((k) => held.delete(k));
            held.add(key);
          }
          assert.ok(held.size <= max);
        }
      },
    ),
    { numRuns: 200 },
  );
});
