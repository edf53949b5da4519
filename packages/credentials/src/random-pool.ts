/**
 * Random bytes for values made on every request (a refresh claim's value, a sealed pair's IV):
 * taken from a pool that the CSPRNG fills POOL_BYTES at a time, as node's own randomUUID and
 * randomInt keep a cache. One `randomBytes` call for a few bytes is one CSPRNG call; in the
 * auth-service under load those calls cost more than the rest of the value's work (docs/benchmarks.md,
 * 2026-12-07). The bytes are the CSPRNG's all the same, and each is handed out once.
 */
import { randomBytes, randomFillSync } from 'node:crypto';

/** How many random bytes one CSPRNG call makes for the pool. */
const POOL_BYTES = 4_096;

const pool = Buffer.allocUnsafeSlow(POOL_BYTES);
/** The next byte not yet handed out; past the end the pool is filled again. */
let next = POOL_BYTES;

/** `n` random bytes, a copy of the pool's that no later call is given. */
export function pooledRandomBytes(n: number): Buffer {
  if (n > POOL_BYTES) return randomBytes(n);
  if (next + n > POOL_BYTES) {
    randomFillSync(pool);
    next = 0;
  }
  const out = Buffer.from(pool.subarray(next, next + n));
  next += n;
  return out;
}
