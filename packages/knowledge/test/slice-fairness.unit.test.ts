/**
 * The event loop's slices are shared by tenant (docs/security.md "Shared pools, per-tenant
 * shares", src/slicer.ts): whatever tasks each tenant has queued, and in whatever order they
 * yielded, the tenants with work take one slice each in turn, so with N tenants queued each runs
 * a slice within N turns; a tenant's own tasks keep their order. Counts only: every slice here
 * yields (a slice of 0 ms), and the order of the slices is what is checked.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { sliceScheduler } from '../src/slicer.ts';

/** One task: its tenant and the slices it runs, each after a yield. */
interface Task {
  tenant: number;
  slices: number;
}

/** Runs `tasks`, started in their order, on a fresh scheduler; the tenant of each slice, in the order they ran. */
async function run(tasks: Task[]): Promise<{ tenant: number; task: number }[]> {
  const scheduler = sliceScheduler();
  const ran: { tenant: number; task: number }[] = [];
  await Promise.all(
    tasks.map(async ({ tenant, slices }, task) => {
      const s = scheduler.slicer(`tenant-${tenant}`, 0);
      for (let i = 0; i < slices; i++) {
        await s.maybeYield();
        ran.push({ tenant, task });
      }
    }),
  );
  return ran;
}

const tasks = fc.array(fc.record({ tenant: fc.nat(5), slices: fc.integer({ min: 1, max: 6 }) }), { minLength: 1, maxLength: 30 });

test('with N tenants queued, each runs a slice within N turns, whatever tasks each has queued', async () => {
  await fc.assert(
    fc.asyncProperty(tasks, async (list) => {
      const ran = await run(list);
      assert.equal(
        ran.length,
        list.reduce((n, t) => n + t.slices, 0),
        'every slice ran once',
      );
      const tenants = new Set(list.map((t) => t.tenant));
      const last = new Map<number, number>();
      ran.forEach(({ tenant }, turn) => last.set(tenant, turn));
      /** Tenants that still have a slice to run after `turn`. */
      const queuedAfter = (turn: number) => [...last.values()].filter((l) => l > turn).length;
      for (const tenant of tenants) {
        const turns = ran.flatMap((r, turn) => (r.tenant === tenant ? [turn] : []));
        assert.ok((turns[0] as number) < tenants.size, `tenant ${tenant}'s first slice at turn ${turns[0]} of ${tenants.size} tenants`);
        for (let k = 1; k < turns.length; k++) {
          const [before, after] = [turns[k - 1] as number, turns[k] as number];
          assert.ok(
            after - before <= queuedAfter(before),
            `tenant ${tenant} waited ${after - before} turns with ${queuedAfter(before)} tenants queued`,
          );
        }
      }
      // A tenant's own tasks: the oldest yield resumes first, so its tasks' slices keep their order.
      for (const tenant of tenants) {
        const order = ran.filter((r) => r.tenant === tenant).map((r) => r.task);
        const first = order.slice(0, new Set(order).size);
        assert.deepEqual(
          first,
          [...first].sort((a, b) => a - b),
          `tenant ${tenant}'s tasks begin in the order they started`,
        );
      }
    }),
    { numRuns: 200 },
  );
});

test("a tenant with sixteen tasks queued takes one turn of every two while another tenant's one task waits", async () => {
  const ran = await run([...Array.from({ length: 16 }, () => ({ tenant: 0, slices: 3 })), { tenant: 1, slices: 3 }]);
  const other = ran.flatMap((r, turn) => (r.tenant === 1 ? [turn] : []));
  // In one queue of tasks, the other tenant's slices came at turns 16, 33 and 50.
  assert.deepEqual(other, [1, 3, 5]);
});

test('within the slice, work goes on without yielding', () => {
  const s = sliceScheduler().slicer('tenant', 60_000);
  assert.equal(s.maybeYield(), undefined);
});
