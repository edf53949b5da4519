/**
 * The outbound pools' per-tenant shares (docs/security.md "Shared pools, per-tenant shares",
 * packages/bounds/src/shares.ts): a tenant past its share waits behind its own requests only, in
 * order; past its waiting bound, or with the lane full, a request is refused at once; an abort
 * takes a waiter out of line and a place never leaks.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createShares, type Release } from '../src/shares.ts';

const BOUNDS = { perTenant: 2, waitingPerTenant: 3, perLane: 5 };

test("past its share a tenant waits behind its own requests, in order; another tenant's requests never wait", async () => {
  const shares = createShares(BOUNDS);
  const held = (await Promise.all([shares.take('acme'), shares.take('acme')])) as Release[];
  const order: number[] = [];
  const waiting = [0, 1, 2].map((i) => shares.take('acme').then((r) => (order.push(i), r)));
  assert.equal(await shares.take('acme'), null, 'past waitingPerTenant: refused at once');
  const other = await shares.take('globex');
  assert.ok(other, "another tenant takes a place at once while acme's requests wait");
  assert.equal(shares.held(), 3);
  held[0]!();
  held[0]!(); // a second call gives nothing back twice
  held[1]!();
  const first = (await waiting[0])!;
  await waiting[1];
  assert.deepEqual(order, [0, 1]);
  assert.equal(shares.held('acme'), 2, 'a place handed over keeps the count');
  first();
  (await waiting[2])!();
  assert.deepEqual(order, [0, 1, 2]);
});

test('with the lane full a new tenant is refused at once; an abort takes a waiter out of line, and no place leaks', async () => {
  const shares = createShares(BOUNDS);
  const releases = (await Promise.all(['a', 'a', 'b', 'b', 'c'].map((t) => shares.take(t)))) as Release[];
  assert.equal(shares.held(), BOUNDS.perLane);
  assert.equal(await shares.take('d'), null, 'the lane is full');
  const abort = new AbortController();
  const waiter = shares.take('a', abort.signal);
  abort.abort();
  assert.equal(await waiter, null);
  assert.equal(await shares.take('a', abort.signal), null, 'an aborted signal takes nothing');
  for (const r of releases) r();
  assert.equal(shares.held(), 0, 'every place is back');
  assert.ok(await shares.take('d'));
});
