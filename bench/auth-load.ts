/**
 * The load of `pnpm bench:auth`: virtual clients in this process, each a loop of requests that
 * depend on the previous answer (a rotated refresh token, a fresh assertion), which autocannon's
 * fixed requests cannot express. Each request's latency is recorded; a step that throws counts
 * as an error and its virtual client goes on.
 */
import type { Redis } from '@svc/accounts';

export interface Window {
  requests: number;
  errors: number;
  elapsedMs: number;
  latencies: number[];
  firstError?: string;
}

/**
 * `clients` loops of `step(client)` for `seconds` (or until a step returns false: its supply ran
 * out). With `rate` (requests/s in all), each client sends its next request at its own slot, every
 * `clients / rate` seconds, or at once when its previous answer came after that slot.
 */
export async function closedLoop(
  clients: number,
  seconds: number,
  step: (client: number) => Promise<boolean>,
  rate?: number,
): Promise<Window> {
  const w: Window = { requests: 0, errors: 0, elapsedMs: 0, latencies: [] };
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let n = 0; performance.now() < end; n++) {
        if (rate) {
          const slot = start + ((client + n * clients) * 1000) / rate;
          if (slot >= end) return;
          if (slot > performance.now()) await new Promise((r) => setTimeout(r, slot - performance.now()));
        }
        const t = performance.now();
        try {
          if (!(await step(client))) return;
          w.latencies.push(performance.now() - t);
          w.requests++;
        } catch (err) {
          w.errors++;
          w.firstError ??= String(err);
        }
      }
    }),
  );
  w.elapsedMs = performance.now() - start;
  return w;
}

/**
 * Open loop: each of `due.length` items is requested when its time comes (`due[i]`, ms since the
 * epoch, moved on by `intervalMs` after each request), as devices polling at their interval do.
 */
export async function paced(due: number[], intervalMs: number, seconds: number, step: (item: number) => Promise<void>): Promise<Window> {
  const w: Window = { requests: 0, errors: 0, elapsedMs: 0, latencies: [] };
  const start = performance.now();
  const startMs = Date.now();
  const endMs = startMs + seconds * 1000;
  // Items left overdue between windows are spread over one interval again, never sooner than
  // their own due time: a burst of every overdue item at once is not what polling devices send.
  due.forEach((d, i) => (due[i] = Math.max(d, startMs + (i * intervalMs) / due.length)));
  const pending = new Set<Promise<void>>();
  for (;;) {
    let i = 0;
    for (let j = 1; j < due.length; j++) if (due[j]! < due[i]!) i = j;
    if (due[i]! >= endMs) break;
    const wait = due[i]! - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const t = performance.now();
    const run = step(i).then(
      () => {
        w.latencies.push(performance.now() - t);
        w.requests++;
      },
      (err: unknown) => {
        w.errors++;
        w.firstError ??= String(err);
      },
    );
    due[i] = Date.now() + intervalMs;
    pending.add(run);
    void run.finally(() => pending.delete(run));
  }
  await Promise.all(pending);
  // The rate offered is per window, however early the last item of it was sent.
  w.elapsedMs = Math.max(performance.now() - start, seconds * 1000);
  return w;
}

/** The `q` quantile of sorted latencies, in ms. */
export function quantile(sorted: number[], q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : NaN;
}

/** Calls per command Redis has run, from INFO commandstats, without the INFO calls that read it. */
export async function redisCommands(redis: Redis): Promise<Map<string, number>> {
  const text = await redis.info('commandstats');
  const calls = new Map<string, number>();
  for (const m of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (m[1] !== 'info') calls.set(m[1]!, Number(m[2]));
  return calls;
}

/**
 * The socket reads Redis has processed (INFO stats `total_reads_processed`): each batch of commands
 * a client wrote at once is about one read, so per request it counts the round trips sent.
 */
export async function redisReads(redis: Redis): Promise<number> {
  return Number(/^total_reads_processed:(\d+)/m.exec(await redis.info('stats'))?.[1] ?? NaN);
}

/** Per request, the commands run between two readings: the total and the most frequent ones. */
export function commandsPerRequest(before: Map<string, number>, after: Map<string, number>, requests: number) {
  const each = [...after].map(([name, n]) => [name, (n - (before.get(name) ?? 0)) / Math.max(1, requests)] as const);
  const total = each.reduce((sum, [, n]) => sum + n, 0);
  const top = each
    .filter(([, n]) => n >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => `${name} ${n.toFixed(1)}`)
    .join(', ');
  return { total, top };
}
