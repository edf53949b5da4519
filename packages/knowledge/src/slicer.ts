/**
 * Cooperative time slicing with a fair share per tenant (docs/knowledge-tools.md "Event-loop
 * budget", docs/security.md "Shared pools, per-tenant shares"): long loops over a project's
 * sections call `await slicer.maybeYield()` between pieces of work of at most a few milliseconds
 * each, and give the event loop back once SLICE_MS of work has run, so no turn holds every other
 * tenant's requests for long.
 *
 * The budget is the process's, not each task's: one slice runs per turn of the loop (setImmediate,
 * after pending I/O). Were each task to resume on its own setImmediate, sixteen concurrent uploads
 * would all resume in the same check phase and hold the loop sixteen slices long.
 *
 * The turns are shared by tenant, not by task: tasks that yielded wait in their tenant's queue, and
 * the tenants with work take one slice each in turn (round-robin; a tenant's own tasks in the order
 * they yielded). With N tenants queued, each runs a slice within N turns, however many tasks one
 * of them has queued; in one queue of tasks, a tenant with sixteen uploads in flight took sixteen
 * turns for every one of another tenant's.
 */

/** Work done in one event-loop turn before yielding, in milliseconds (docs/security.md "Bounds"). */
export const SLICE_MS = 8;

export interface Slicer {
  /** Yields to the event loop when the current slice has run SLICE_MS; otherwise resolves at once. */
  maybeYield(): Promise<void> | undefined;
}

/** Where the tasks of every tenant wait for their turns: one per process (`slicer`), or one per test. */
export interface SliceScheduler {
  /** A slicer for one task of `tenant` (the workspace the work is done for). */
  slicer(tenant: string, sliceMs?: number): Slicer;
}

export function sliceScheduler(): SliceScheduler {
  /** Per tenant, the continuations of its tasks that yielded; the Map's order is the round-robin's. */
  const waiting = new Map<string, (() => void)[]>();
  let resumeScheduled = false;
  /** When the slice now running began: every task running in this turn spends from it. */
  let sliceStart = performance.now();

  /** The first tenant's oldest continuation; that tenant goes to the back of the round. */
  function next(): (() => void) | undefined {
    const first = waiting.entries().next();
    if (first.done) return undefined;
    const [tenant, queue] = first.value;
    waiting.delete(tenant);
    const resume = queue.shift();
    if (queue.length) waiting.set(tenant, queue);
    return resume;
  }

  function resumeNextInNextTurn(): void {
    if (resumeScheduled || waiting.size === 0) return;
    resumeScheduled = true;
    setImmediate(() => {
      resumeScheduled = false;
      sliceStart = performance.now();
      next()?.();
      // The resumed task runs its slice in this turn's microtasks; the next waits for the next turn.
      resumeNextInNextTurn();
    });
  }

  return {
    slicer(tenant, sliceMs = SLICE_MS) {
      return {
        maybeYield() {
          if (performance.now() - sliceStart < sliceMs) return undefined;
          return new Promise<void>((resume) => {
            const queue = waiting.get(tenant);
            if (queue) queue.push(resume);
            else waiting.set(tenant, [resume]);
            resumeNextInNextTurn();
          });
        },
      };
    },
  };
}

/**
 * Work written as a generator that yields where it may stop for a while (every few hundred
 * microseconds of work), run to its end in one go: for inputs known to be small.
 */
export function runAll<T>(steps: Generator<void, T>): T {
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}

/** The same work run to its end in slices: at each of its yields, `s` may give the event loop back. */
export async function runInSlices<T>(steps: Generator<void, T>, s: Slicer): Promise<T> {
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    await s.maybeYield();
  }
}

/** The process's scheduler: every slicer of the knowledge package shares its turns. */
const PROCESS_SCHEDULER = sliceScheduler();

/** A slicer for one task of `tenant` on the process's scheduler. */
export function slicer(tenant: string, sliceMs = SLICE_MS): Slicer {
  return PROCESS_SCHEDULER.slicer(tenant, sliceMs);
}
