/**
 * Cooperative time slicing (docs/knowledge-tools.md "Event-loop budget"): long loops over a
 * project's sections call `await slicer.maybeYield()` between items, and give the event loop back
 * once SLICE_MS of work has run, so no single turn holds every other tenant's requests for long.
 *
 * The budget is the process's, not each task's: tasks that yielded wait in one queue and resume
 * one per turn of the loop (setImmediate, after pending I/O). Were each task to resume on its own
 * setImmediate, sixteen concurrent uploads would all resume in the same check phase and hold the
 * loop sixteen slices long.
 */

/** Work done in one event-loop turn before yielding, in milliseconds. */
const SLICE_MS = 8;

export interface Slicer {
  /** Yields to the event loop when the current slice has run SLICE_MS; otherwise resolves at once. */
  maybeYield(): Promise<void> | undefined;
}

/** Continuations of tasks that yielded, in the order they yielded. */
const waiting: (() => void)[] = [];
let resumeScheduled = false;
/** When the slice now running began: every task running in this turn spends from it. */
let sliceStart = performance.now();

function resumeNextInNextTurn(): void {
  if (resumeScheduled || waiting.length === 0) return;
  resumeScheduled = true;
  setImmediate(() => {
    resumeScheduled = false;
    sliceStart = performance.now();
    waiting.shift()?.();
    // The resumed task runs its slice in this turn's microtasks; the next waits for the next turn.
    resumeNextInNextTurn();
  });
}

export function slicer(sliceMs = SLICE_MS): Slicer {
  return {
    maybeYield() {
      if (performance.now() - sliceStart < sliceMs) return undefined;
      return new Promise<void>((resume) => {
        waiting.push(resume);
        resumeNextInNextTurn();
      });
    },
  };
}
