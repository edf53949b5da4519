/**
 * The continuous audit exporter (docs/audit.md "Streaming"). One replica per exporter name exports
 * (a lease in Redis); it visits every workspace's log in passes, one batch of at most
 * AUDIT_STREAM_BATCH entries each, sends it, and moves the workspace's cursor only once the
 * receiver accepted it: at-least-once, and after a crash at most one batch per workspace repeats.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from '@svc/accounts';
import {
  AUDIT_STREAM_BACKOFF_MAX_MS,
  AUDIT_STREAM_BACKOFF_MIN_MS,
  AUDIT_STREAM_BATCH,
  AUDIT_STREAM_DISCOVER_MS,
  AUDIT_STREAM_IDLE_MS,
  AUDIT_STREAM_LEASE_MS,
  AUDIT_STREAM_MAX_BODY,
  AUDIT_STREAM_PASS_MS,
} from './bounds.ts';
import { entryRecord, gapRecord, type Exported } from './records.ts';
import { DeliveryError, type Sink } from './sinks.ts';
import { auditWorkspaces, exporterStore, readAfter, type Cursor } from './store.ts';

/** The timings (tests shorten them; the CLI keeps the bounds' values). */
export interface ExporterTiming {
  idleMs: number;
  discoverMs: number;
  leaseMs: number;
  passMs: number;
  backoffMinMs: number;
  backoffMaxMs: number;
}

const DEFAULT_TIMING: ExporterTiming = {
  idleMs: AUDIT_STREAM_IDLE_MS,
  discoverMs: AUDIT_STREAM_DISCOVER_MS,
  leaseMs: AUDIT_STREAM_LEASE_MS,
  passMs: AUDIT_STREAM_PASS_MS,
  backoffMinMs: AUDIT_STREAM_BACKOFF_MIN_MS,
  backoffMaxMs: AUDIT_STREAM_BACKOFF_MAX_MS,
};

/** What the exporter tells its operator (never a record's content, never the receiver's headers). */
interface ExporterLog {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

export interface ExporterDeps {
  redis: Redis;
  name: string;
  sink: Sink;
  log: ExporterLog;
  now?: () => number;
  timing?: Partial<ExporterTiming>;
}

export interface Exporter {
  /** Runs until stop(): waits for the lease, then exports. */
  run(): Promise<void>;
  /** Ends the run after the batch in flight; gives the lease up. */
  stop(): Promise<void>;
}

export function createExporter(deps: ExporterDeps): Exporter {
  const t = { ...DEFAULT_TIMING, ...deps.timing };
  const now = deps.now ?? Date.now;
  const store = exporterStore(deps.redis, deps.name);
  const token = randomUUID();
  const stopping = new AbortController();
  let holding = false;
  let running: Promise<void> | null = null;
  let workspaces: string[] = [];
  let discoveredAt = -Infinity;
  let resumeAt = 0;

  const pause = (ms: number) => sleep(ms, undefined, { signal: stopping.signal }).catch(() => undefined);

  /** Holds or renews the lease; false when another replica has it. */
  async function hold(): Promise<boolean> {
    const was = holding;
    holding = await store.hold(token, t.leaseMs).catch((err: unknown) => {
      deps.log.warn('audit exporter: cannot reach Redis for the lease', { err });
      return false;
    });
    if (holding !== was)
      deps.log.info(holding ? 'audit exporter: holding the lease' : 'audit exporter: waiting for the lease', { name: deps.name });
    return holding;
  }

  /** One workspace's next batch, cut to AUDIT_STREAM_MAX_BODY: its records and the cursor once accepted. */
  async function nextBatch(ws: string): Promise<{ records: string[]; cursor: Cursor } | null> {
    const read = await readAfter(deps.redis, ws, await store.cursor(ws), AUDIT_STREAM_BATCH);
    const at = now();
    const out: Exported[] = [];
    if (read.gap) {
      deps.log.warn('audit exporter: entries trimmed before export', { workspace: ws, ...read.gap });
      out.push(gapRecord({ workspace: ws, ...read.gap }, at));
    }
    const records: string[] = [];
    let bytes = deps.sink.envelopeBytes;
    let cursor: Cursor | null = null;
    const take = (r: Exported): boolean => {
      const text = deps.sink.encode(r, at);
      const size = Buffer.byteLength(text) + 1;
      if (records.length > 0 && bytes + size > AUDIT_STREAM_MAX_BODY) return false;
      records.push(text);
      bytes += size;
      return true;
    };
    for (const r of out) take(r);
    for (const { entry, ordinal } of read.entries) {
      if (!take(entryRecord(entry))) break;
      cursor = { id: entry.id, ordinal };
    }
    // A gap is seen only before a kept entry, so the report always travels with one and its cursor.
    return cursor ? { records, cursor } : null;
  }

  /** Sends until accepted, waiting between tries (doubling from backoffMinMs to backoffMaxMs). */
  async function deliver(ws: string, records: string[]): Promise<boolean> {
    let wait = t.backoffMinMs;
    for (;;) {
      if (stopping.signal.aborted || !holding) return false;
      try {
        await deps.sink.send(records);
        return true;
      } catch (err) {
        if (!(err instanceof DeliveryError)) throw err;
        const ms = Math.min(t.backoffMaxMs, Math.max(wait, err.retryAfterMs ?? 0));
        deps.log.warn('audit exporter: batch not accepted, retrying', {
          workspace: ws,
          records: records.length,
          reason: err.message,
          retryInMs: ms,
        });
        await pause(ms);
        wait = Math.min(t.backoffMaxMs, wait * 2);
      }
    }
  }

  /** One pass: one batch per workspace, starting where the last pass stopped; whether anything was sent. */
  async function pass(): Promise<boolean> {
    if (now() - discoveredAt >= t.discoverMs) {
      workspaces = await auditWorkspaces(deps.redis);
      discoveredAt = now();
    }
    const started = now();
    let sent = false;
    const n = workspaces.length;
    for (let i = 0; i < n; i++) {
      const ws = workspaces[(resumeAt + i) % n]!;
      if (stopping.signal.aborted || !holding) return sent;
      if (now() - started >= t.passMs) {
        resumeAt = (resumeAt + i) % n;
        return sent;
      }
      const batch = await nextBatch(ws);
      if (!batch) continue;
      if (!(await deliver(ws, batch.records))) return sent;
      if (!(await store.commit(token, t.leaseMs, ws, batch.cursor))) {
        // Another replica took the name over while this batch was out: it repeats at most this batch.
        holding = false;
        deps.log.warn('audit exporter: lease lost, the batch may repeat', { workspace: ws });
        return sent;
      }
      sent = true;
    }
    resumeAt = 0;
    return sent;
  }

  async function loop(): Promise<void> {
    // The lease is renewed apart from the batches, so a slow receiver does not lose it.
    const renew = setInterval(() => void (holding ? hold() : undefined), Math.max(1, Math.floor(t.leaseMs / 3)));
    try {
      while (!stopping.signal.aborted) {
        if (!holding && !(await hold())) {
          await pause(Math.max(1, Math.floor(t.leaseMs / 3)));
          continue;
        }
        let sent = false;
        try {
          sent = await pass();
        } catch (err) {
          deps.log.warn('audit exporter: pass failed', { err });
        }
        if (!sent) await pause(t.idleMs);
      }
    } finally {
      clearInterval(renew);
      await store.release(token).catch(() => undefined);
      holding = false;
    }
  }

  return {
    run() {
      running ??= loop();
      return running;
    },
    async stop() {
      stopping.abort();
      await running;
    },
  };
}
