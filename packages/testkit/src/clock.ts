/**
 * A clock a test controls, for code that takes `now: () => number` as a dependency (the rate
 * limiter's windows, key and token expiry, the resolution cache). Moving it is instant and
 * deterministic, where waiting for real time is slow and flaky at window edges.
 */
export interface TestClock {
  /** Milliseconds since the epoch, as Date.now() gives them; pass `clock.now` as the dependency. */
  now: () => number;
  /** Moves the clock forward by `ms`. */
  advance(ms: number): void;
  /** Sets the clock to `ms` since the epoch. */
  set(ms: number): void;
}

/**
 * Starts at `start` (default: the real time now). Frozen (the default), it moves only by
 * advance()/set(); running, it also follows real time, so a long-lived fixture behaves as usual
 * and advance() skips ahead.
 */
export function testClock(options: { start?: number; frozen?: boolean } = {}): TestClock {
  const frozen = options.frozen ?? true;
  const realStart = Date.now();
  let base = options.start ?? realStart;
  const elapsed = () => (frozen ? 0 : Date.now() - realStart);
  return {
    now: () => base + elapsed(),
    advance(ms) {
      base += ms;
    },
    set(ms) {
      base = ms - elapsed();
    },
  };
}
