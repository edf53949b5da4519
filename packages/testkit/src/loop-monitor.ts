/**
 * How long the event loop was held (docs/security.md "Bounds": no request may hold it more than
 * 50 ms). A timer ticks every TICK_MS; a tick that comes late by more than the budget means the
 * loop did not turn for that long. The main thread's own CPU time over the same span is counted
 * too, and the smaller of the two is taken: a process the machine did not schedule (two cores
 * shared by parallel test files and Redis) waited, but held nothing.
 *
 * Garbage collection's pauses on the main thread are taken out of a hold they overlap: their
 * length follows the whole test process's heap (three services, Redis clients and the test's own
 * load generator share it), not one request's work, and the entries give wall time only, which
 * a loaded machine stretches (a 35 ms pause measured 300-470 ms with two cores shared by eight
 * processes). They are reported beside the hold instead (docs/conventions.md "Tests").
 */
import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';

/** How often the loop is sampled. */
const TICK_MS = 5;

export interface LoopHold {
  /** Milliseconds the loop was held without turning (wall time, capped by thread CPU time), garbage collection's pauses taken out. */
  ms: number;
  /** When it ended (performance.now()). */
  at: number;
  /** The longest garbage-collection pause since the last reset, in milliseconds of wall time. */
  gcMs: number;
}

export interface LoopMonitor {
  /**
   * The longest hold since the last reset. Async: garbage collection's pauses are queued a turn
   * after they happen, so one turn is let by first.
   */
  worst(): Promise<LoopHold>;
  reset(): void;
  stop(): void;
}

/** Monitors running in this process, paused together by `outsideLoopBudget`. */
const running = new Set<{ paused: number; reset(): void }>();

/**
 * Runs a test's own checking work (validating a document with a third-party validator, building
 * a large fixture) without counting it against the loop budget: the budget is for the requests the
 * services serve, not for the test. Say why at the call site.
 */
export async function outsideLoopBudget<T>(fn: () => T | Promise<T>): Promise<T> {
  for (const m of running) m.paused++;
  try {
    return await fn();
  } finally {
    for (const m of running) {
      m.paused--;
      m.reset();
    }
  }
}

function threadCpuMs(): number {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
}

/** A turn that came late by more than this is kept, to have garbage collection taken out of it later. */
const KEPT_HOLD_MS = 10;

interface Span {
  start: number;
  end: number;
}

function overlap(a: Span, b: Span): number {
  return Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
}

export function monitorLoop(): LoopMonitor {
  let lastWall = performance.now();
  let lastCpu = threadCpuMs();
  /** Turns that came late since the last reset: their span, and the held time (capped by CPU). */
  let holds: (Span & { held: number })[] = [];
  let pauses: Span[] = [];
  const state = {
    paused: 0,
    reset() {
      lastWall = performance.now();
      lastCpu = threadCpuMs();
    },
  };
  running.add(state);
  const sample = () => {
    if (state.paused > 0) return;
    const wall = performance.now();
    const cpu = threadCpuMs();
    const held = Math.min(wall - lastWall - TICK_MS, cpu - lastCpu);
    if (held > KEPT_HOLD_MS) holds.push({ start: lastWall, end: wall, held });
    lastWall = wall;
    lastCpu = cpu;
  };
  const timer = setInterval(sample, TICK_MS);
  timer.unref();
  /** When the monitor was last reset: a pause that began before it, reported after, is not this measure's. */
  let since = performance.now();
  const notePauses = (entries: PerformanceEntry[]) => {
    for (const e of entries) if (e.startTime >= since) pauses.push({ start: e.startTime, end: e.startTime + e.duration });
  };
  const gc = new PerformanceObserver((list) => notePauses(list.getEntries()));
  gc.observe({ entryTypes: ['gc'] });
  return {
    async worst() {
      // Sampled once more now: a hold that just ended has had no tick after it yet.
      sample();
      // A pause's entry is queued a turn after it ends, and handed to the observer a turn later
      // still: one turn is let by, then what is queued is taken, so a collection in the test's
      // last turn is taken out of that turn like any other.
      await new Promise((done) => setImmediate(done));
      notePauses(gc.takeRecords());
      let worst: LoopHold = { ms: 0, at: lastWall, gcMs: 0 };
      for (const p of pauses) worst.gcMs = Math.max(worst.gcMs, p.end - p.start);
      for (const h of holds) {
        const inGc = pauses.reduce((sum, p) => sum + overlap(h, p), 0);
        const ms = h.held - inGc;
        if (ms > worst.ms) worst = { ...worst, ms, at: h.end };
      }
      return worst;
    },
    reset() {
      lastWall = since = performance.now();
      lastCpu = threadCpuMs();
      holds = [];
      pauses = [];
    },
    stop() {
      clearInterval(timer);
      gc.disconnect();
      running.delete(state);
    },
  };
}
