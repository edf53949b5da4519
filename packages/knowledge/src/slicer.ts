/**
 * Cooperative time slicing (docs/knowledge-tools.md "Event-loop budget"): long loops over a
 * project's sections call `await slicer.maybeYield()` between items, and give the event loop back
 * (setImmediate, after pending I/O) once SLICE_MS of work has run, so no single turn holds every
 * other tenant's requests for long.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Work done in one event-loop turn before yielding, in milliseconds. */
const SLICE_MS = 8;

export interface Slicer {
  /** Yields to the event loop when the current slice has run SLICE_MS; otherwise resolves at once. */
  maybeYield(): Promise<void> | undefined;
}

export function slicer(sliceMs = SLICE_MS): Slicer {
  let start = performance.now();
  return {
    maybeYield() {
      if (performance.now() - start < sliceMs) return undefined;
      return nextTurn().then(() => {
        start = performance.now();
      });
    },
  };
}
