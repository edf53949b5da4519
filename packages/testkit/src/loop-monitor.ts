/**
 * How long the event loop was held (docs/security.md "Bounds": no request may hold it more than
 * 50 ms). A timer ticks every TICK_MS; a tick that comes late by more than the budget means the
 * loop did not turn for that long. The main thread's own CPU time over the same span is counted
 * too, and the smaller of the two is taken: a process the machine did not schedule (two cores
 * shared by parallel test files and Redis) waited, but held nothing.
 */

/** How often the loop is sampled. */
const TICK_MS = 5;

export interface LoopHold {
  /** Milliseconds the loop was held without turning (wall time, capped by thread CPU time). */
  ms: number;
  /** When it ended (performance.now()). */
  at: number;
}

export interface LoopMonitor {
  /** The longest hold since the last reset. */
  worst(): LoopHold;
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

export function monitorLoop(): LoopMonitor {
  let lastWall = performance.now();
  let lastCpu = threadCpuMs();
  let worst: LoopHold = { ms: 0, at: lastWall };
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
    if (held > worst.ms) worst = { ms: held, at: wall };
    lastWall = wall;
    lastCpu = cpu;
  };
  const timer = setInterval(sample, TICK_MS);
  timer.unref();
  return {
    // Sampled once more now: a hold that just ended has had no tick after it yet.
    worst: () => (sample(), worst),
    reset() {
      lastWall = performance.now();
      lastCpu = threadCpuMs();
      worst = { ms: 0, at: lastWall };
    },
    stop() {
      clearInterval(timer);
      running.delete(state);
    },
  };
}
