/**
 * Background writes (last-used times) go a slice at a time on the request connection
 * (BACKGROUND_WRITE_SLICE): whatever the number of items, never more than a slice of writes is
 * outstanding at once, every item is written once, and a slice goes only when the one before it
 * is answered.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { BACKGROUND_WRITE_SLICE, writeInSlices } from '../src/context.ts';

test('writeInSlices: at most one slice outstanding, each item written once, in order of slices', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 0, max: 5 * BACKGROUND_WRITE_SLICE + 7 }), async (n) => {
      const items = Array.from({ length: n }, (_, i) => i);
      let outstanding = 0;
      let most = 0;
      const written: number[] = [];
      await writeInSlices(items, async (item) => {
        outstanding++;
        most = Math.max(most, outstanding);
        // Answered on a later turn, as a Redis reply is.
        await new Promise(setImmediate);
        written.push(item);
        outstanding--;
      });
      assert.ok(most <= BACKGROUND_WRITE_SLICE, `${most} writes outstanding at once`);
      assert.deepEqual(written, items);
    }),
    { numRuns: 25 },
  );
});
