/**
 * The pool of random bytes (random-pool.ts): whatever sizes are asked for, in whatever order,
 * each call gets bytes of its own that no later call (or refill of the pool) changes or shares,
 * and what comes out is the CSPRNG's: no repeated 16-byte value, bytes spread evenly.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { pooledRandomBytes } from '../src/index.ts';

/** Sizes as callers ask: a few bytes, about the pool's size, and past it. */
const size = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 64 }) },
  { weight: 1, arbitrary: fc.integer({ min: 4_000, max: 4_200 }) },
);

test('each call gets bytes of its own: later calls and refills of the pool never change them', () => {
  fc.assert(
    fc.property(fc.array(size, { minLength: 1, maxLength: 300 }), (sizes) => {
      const given = sizes.map((n) => pooledRandomBytes(n));
      const copies = given.map((b) => Buffer.from(b));
      // Enough more to refill the pool several times over.
      for (let i = 0; i < 1_000; i++) pooledRandomBytes(16).fill(0xff);
      given.forEach((b, i) => {
        assert.equal(b.length, sizes[i]);
        assert.ok(b.equals(copies[i]!), `call ${i} (${sizes[i]} bytes) was changed by later calls`);
      });
    }),
    { numRuns: 50 },
  );
});

test('the bytes are random: no 16-byte value twice in 20,000, every byte value near its share', () => {
  const seen = new Set<string>();
  const counts = new Array<number>(256).fill(0);
  for (let i = 0; i < 20_000; i++) {
    const b = pooledRandomBytes(16);
    seen.add(b.toString('hex'));
    for (const x of b) counts[x]!++;
  }
  assert.equal(seen.size, 20_000);
  // 320,000 bytes: 1,250 of each value expected; a deviation of 250 is over 7 standard deviations.
  for (const [value, n] of counts.entries()) assert.ok(Math.abs(n - 1_250) < 250, `byte ${value} came ${n} times`);
});
