/**
 * The guarded client's name lookups are bounded in flight (packages/bounds/src/guarded-fetch.ts):
 * a lookup a never-answering nameserver holds keeps a libuv thread after the fetch gave up, so past
 * GUARDED_LOOKUPS_IN_FLIGHT a lookup is refused at once, and a slot is free again only when the
 * lookup itself ends.
 */
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { test } from 'node:test';
import { boundedResolver, CimdFetchRefused, GUARDED_LOOKUPS_IN_FLIGHT } from '../src/guarded-fetch.ts';

test('past GUARDED_LOOKUPS_IN_FLIGHT hanging lookups, the next is refused at once; an answer frees a slot', async () => {
  const pending: ((a: LookupAddress[]) => void)[] = [];
  let asked = 0;
  const resolve = boundedResolver(() => {
    asked++;
    return new Promise<LookupAddress[]>((ok) => pending.push(ok));
  });
  const held = Array.from({ length: GUARDED_LOOKUPS_IN_FLIGHT }, (_, i) => resolve(`hang-${i}.example`));
  await assert.rejects(resolve('one-more.example'), (err: unknown) => err instanceof CimdFetchRefused && /in flight/.test(err.message));
  assert.equal(asked, GUARDED_LOOKUPS_IN_FLIGHT, 'the refused lookup never reached the system');
  pending[0]!([{ address: '192.0.2.1', family: 4 }]);
  await held[0];
  const next = resolve('after.example');
  pending.at(-1)!([{ address: '192.0.2.2', family: 4 }]);
  assert.deepEqual(await next, [{ address: '192.0.2.2', family: 4 }]);
  for (const ok of pending) ok([]);
  await Promise.all(held);
});
