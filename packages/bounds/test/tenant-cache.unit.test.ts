/**
 * The shared cache's per-tenant shares (docs/security.md "Shared pools, per-tenant shares",
 * packages/bounds/src/tenant-cache.ts), as properties over any sequence of sets, deletes and reads
 * by any tenants: the bounds always hold, the entry just set is always there, and one tenant's
 * entries are dropped by another's only when the shares in use add up to more than the whole.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { createTenantCache, type TenantCacheBounds } from '../src/tenant-cache.ts';

type Op = { kind: 'set' | 'delete' | 'get'; tenant: string; key: string };

const op = (tenants: number, keys: number) =>
  fc.record({
    kind: fc.constantFrom('set' as const, 'set' as const, 'delete' as const, 'get' as const),
    tenant: fc.integer({ min: 0, max: tenants - 1 }).map((t) => `t${t}`),
    key: fc.integer({ min: 0, max: keys - 1 }).map((k) => `k${k}`),
  });

/** What the cache should hold, in the plainest terms: a list in insertion order. */
function model(bounds: TenantCacheBounds) {
  let held: { tenant: string; key: string }[] = [];
  const without = (tenant: string, key: string) => held.filter((e) => !(e.tenant === tenant && e.key === key));
  return {
    apply(o: Op): void {
      if (o.kind === 'delete') held = without(o.tenant, o.key);
      if (o.kind === 'set') {
        held = without(o.tenant, o.key);
        const own = held.filter((e) => e.tenant === o.tenant);
        if (own.length >= bounds.perTenant) held = held.filter((e) => e !== own[0]);
        if (held.length >= bounds.entries) held = held.slice(1);
        held.push({ tenant: o.tenant, key: o.key });
      }
    },
    has: (tenant: string, key: string) => held.some((e) => e.tenant === tenant && e.key === key),
    held: () => held,
  };
}

const boundsArb = fc
  .record({ entries: fc.integer({ min: 1, max: 12 }), perTenant: fc.integer({ min: 1, max: 12 }) })
  .filter((b) => b.perTenant <= b.entries);

test('whatever tenants set, delete and read, the bounds hold and the cache holds what the model says', () => {
  fc.assert(
    fc.property(boundsArb, fc.array(op(4, 8), { maxLength: 200 }), (bounds, ops) => {
      const cache = createTenantCache<string>(bounds);
      const m = model(bounds);
      for (const o of ops) {
        m.apply(o);
        if (o.kind === 'set') cache.set(o.tenant, o.key, `${o.tenant}/${o.key}`);
        if (o.kind === 'delete') cache.delete(o.tenant, o.key);
        assert.equal(cache.get(o.tenant, o.key), m.has(o.tenant, o.key) ? `${o.tenant}/${o.key}` : undefined);
        if (o.kind === 'set') assert.ok(cache.get(o.tenant, o.key) !== undefined, 'the entry just set is held');
        assert.deepEqual(
          [...cache.entries()].map(([t, k]) => `${t}/${k}`),
          m.held().map((e) => `${e.tenant}/${e.key}`),
          'entries() walks what is held, oldest first',
        );
        assert.ok(cache.held() <= bounds.entries);
        for (const t of ['t0', 't1', 't2', 't3']) {
          assert.ok(cache.held(t) <= bounds.perTenant, `${t} holds at most its share`);
          assert.equal(cache.held(t), m.held().filter((e) => e.tenant === t).length);
        }
      }
    }),
    { numRuns: 300 },
  );
});

test("while the tenants' shares fit in the whole, no tenant's entry is ever dropped by another tenant's set", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 4 }),
      fc.integer({ min: 1, max: 4 }),
      fc.array(op(4, 10), { maxLength: 200 }),
      (perTenant, tenants, ops) => {
        const cache = createTenantCache<number>({ entries: perTenant * tenants, perTenant });
        const keys = Array.from({ length: 10 }, (_, k) => `k${k}`);
        const names = Array.from({ length: tenants }, (_, t) => `t${t}`);
        for (const o of ops) {
          const tenant = names[Number(o.tenant.slice(1)) % tenants]!;
          const others = names
            .filter((t) => t !== tenant)
            .flatMap((t) => keys.filter((k) => cache.get(t, k) !== undefined).map((k) => [t, k] as const));
          if (o.kind === 'set') cache.set(tenant, o.key, 1);
          if (o.kind === 'delete') cache.delete(tenant, o.key);
          for (const [t, k] of others) assert.equal(cache.get(t, k), 1, `${tenant}'s ${o.kind} dropped ${t}'s ${k}`);
        }
      },
    ),
    { numRuns: 300 },
  );
});

test('a tenant churning without end leaves every other tenant its entries', () => {
  const cache = createTenantCache<number>({ entries: 100, perTenant: 10 });
  for (let i = 0; i < 10; i++) cache.set('victim', `k${i}`, i);
  for (let i = 0; i < 10_000; i++) cache.set('churner', `k${i}`, i);
  assert.equal(cache.held('victim'), 10);
  assert.equal(cache.held('churner'), 10);
  for (let i = 0; i < 10; i++) assert.equal(cache.get('victim', `k${i}`), i);
});
