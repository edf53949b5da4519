/**
 * Polling instead of fixed sleeps: a test waits for what it can observe (a 401, an empty cache, a
 * healthy server), bounded by a timeout that fails with a message naming what never happened.
 * A fixed `setTimeout(r, N)` in a test is either too short on a loaded machine or wasted time.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  /** Give up after this many milliseconds (default 5000). */
  timeout?: number;
  /** Pause between two attempts, in milliseconds (default 25). */
  interval?: number;
  /** What is awaited, for the failure message: "the revoked key to be refused". */
  message?: string | (() => string);
}

/** Thrown from a condition to end the wait at once (the process being awaited exited, say). */
export class GiveUp extends Error {
  override name = 'GiveUp';
}

/** The failure of waitFor and eventually; `cause` is the last attempt's error, if it threw. */
export class WaitTimeout extends Error {
  override name = 'WaitTimeout';
}

/** What waitFor returns: the condition's value, once truthy. */
export type Truthy<T> = Exclude<T, false | 0 | 0n | '' | null | undefined>;

type Attempt<T> = { ok: true; value: T } | { ok: false; value?: unknown; error?: unknown };

const describe = (what: WaitOptions['message']) => (typeof what === 'function' ? what() : (what ?? 'the condition'));

function show(v: unknown): string {
  try {
    const s = typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
    return s.length > 300 ? `${s.slice(0, 300)}…` : s;
  } catch {
    return String(v);
  }
}

async function poll<T>(attempt: () => Promise<Attempt<T>>, options: WaitOptions, kind: string): Promise<T> {
  const timeout = options.timeout ?? 5_000;
  const interval = options.interval ?? 25;
  const start = Date.now();
  let attempts = 0;
  let last: Attempt<T> | undefined;
  const expired = () => Date.now() - start >= timeout;
  for (;;) {
    attempts++;
    // An attempt that hangs (a request that never answers) must not outlive the timeout.
    const left = Math.max(0, timeout - (Date.now() - start));
    const ac = new AbortController();
    const result = await Promise.race([
      attempt().finally(() => ac.abort()),
      sleep(left, 'hung' as const, { signal: ac.signal }).catch(() => 'aborted' as const),
    ]);
    if (result === 'hung') {
      throw new WaitTimeout(
        `${kind}: timed out after ${timeout} ms waiting for ${describe(options.message)} (attempt ${attempts} still running)`,
      );
    }
    if (result !== 'aborted') last = result;
    if (last?.ok) return last.value;
    if (last && 'error' in last && last.error instanceof GiveUp) throw last.error;
    if (expired()) {
      const detail = !last
        ? ''
        : 'error' in last
          ? `; last attempt threw: ${last.error instanceof Error ? last.error.message : show(last.error)}`
          : `; last value: ${show(last.value)}`;
      throw new WaitTimeout(
        `${kind}: timed out after ${timeout} ms (${attempts} attempts) waiting for ${describe(options.message)}${detail}`,
        last && 'error' in last ? { cause: last.error } : undefined,
      );
    }
    await sleep(Math.min(interval, Math.max(0, timeout - (Date.now() - start))));
  }
}

/**
 * Calls `condition` until it returns a truthy value, and returns that value. An attempt that throws
 * counts as "not yet" (its error is reported on timeout), except GiveUp, which ends the wait.
 *
 *   await waitFor(async () => (await ping(key)).status === 401, { timeout: 1000, message: 'the revoked key to be refused' });
 */
export function waitFor<T>(condition: () => T | Promise<T>, options: WaitOptions | string = {}): Promise<Truthy<T>> {
  const opts = typeof options === 'string' ? { message: options } : options;
  return poll<Truthy<T>>(
    async () => {
      try {
        const value = await condition();
        return value ? { ok: true, value: value as Truthy<T> } : { ok: false, value };
      } catch (error) {
        return { ok: false, error };
      }
    },
    opts,
    'waitFor',
  );
}

/**
 * Runs `assertion` until it does not throw, and returns what it returned; on timeout the last
 * assertion error is the cause, so the failure reads like the assertion's own.
 *
 *   await eventually(async () => assert.equal(await roleOf(key), 'VIEWER'), { timeout: 1000 });
 */
export async function eventually<T>(assertion: () => T | Promise<T>, options: WaitOptions | string = {}): Promise<T> {
  const opts = typeof options === 'string' ? { message: options } : options;
  try {
    return await poll(
      async () => {
        try {
          return { ok: true, value: await assertion() };
        } catch (error) {
          return { ok: false, error };
        }
      },
      { ...opts, message: opts.message ?? 'the assertion to pass' },
      'eventually',
    );
  } catch (err) {
    // Keep the assertion's own message (actual/expected) in front; the wait is the context.
    if (err instanceof WaitTimeout && err.cause instanceof Error) {
      err.message = `${err.message}\n${err.cause.message}`;
    }
    throw err;
  }
}
