/**
 * The delivery worker (docs/webhooks.md "Delivery"). One replica at a time delivers: it holds a
 * Redis lease (SET NX PX, renewed every WEBHOOK_LEASE_RENEW_MS on its own timer, so a slow
 * delivery never lets it run out); another takes over WEBHOOK_LEASE_MS after the holder stops
 * renewing, and the holder sends nothing and moves no cursor once its lease may have run out. A
 * turn starts every endpoint with something to send and does not wait for them: an endpoint still
 * running is skipped, and one endpoint's run ends after WEBHOOK_ENDPOINT_RUN_MS. Each endpoint
 * reads its workspace's audit log from its own cursor, oldest first, and sends one event at a time: the next waits while one is retried (in order per endpoint). The
 * cursor moves only after a 2xx, so a crash between the send and the move sends the event again
 * (at least once; `webhook-id` is the same each time, for the receiver to drop repeats).
 */
import { randomUUID } from 'node:crypto';
import { K, type Redis } from '@svc/accounts';
import { holdLease, releaseLease } from '@svc/limits';
import {
  WEBHOOK_CONCURRENCY,
  WEBHOOK_ENDPOINT_RUN_MS,
  WEBHOOK_LEASE_MS,
  WEBHOOK_LEASE_RENEW_MS,
  WEBHOOK_LOG_ERROR_MAX,
  WEBHOOK_POLL_MS,
  WEBHOOK_READ_BATCH,
  WEBHOOK_RETRY_DELAYS_MS,
  WEBHOOK_RETRY_WINDOW_MS,
} from './bounds.ts';
import { eventOf } from './events.ts';
import { WK } from './keys.ts';
import { signedHeaders } from './signing.ts';
import type { WebhookEndpoint, WebhookStore } from './store.ts';

/** The outbound POST (the auth-service gives its guarded fetch: docs/webhooks.md "Outbound protections"). */
export type WebhookSend = (url: string, init: { headers: Record<string, string>; body: string }) => Promise<{ status: number }>;

export interface WorkerDeps {
  redis: Redis;
  store: WebhookStore;
  send: WebhookSend;
  now?: () => number;
  /** Failures of the worker itself (Redis unreachable): logged, the next turn tries again. */
  onError?: (err: unknown) => void;
}

export interface WebhookWorker {
  /** One turn: take or renew the lease, then start every endpoint that has something to send. Resolves when they are done (the timer's turns do not wait). */
  turn(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
}

type StreamEntry = [string, string[]];

/** How long a stopping worker waits to hand its lease back. */
const RELEASE_WAIT_MS = 1_000;

export function createWebhookWorker(deps: WorkerDeps): WebhookWorker {
  const now = deps.now ?? Date.now;
  const me = randomUUID();
  const busy = new Map<string, Promise<void>>();
  let timer: NodeJS.Timeout | null = null;

  let heldUntil = 0;
  let renewer: NodeJS.Timeout | null = null;

  /** Takes or renews the lease; true while it is held. */
  async function renew(): Promise<boolean> {
    const asked = Date.now();
    const held = await holdLease(deps.redis, WK.lease(), me, WEBHOOK_LEASE_MS);
    // Counted from before the ask: the lease may have been set at any moment of the round trip.
    heldUntil = held ? asked + WEBHOOK_LEASE_MS : 0;
    return held;
  }

  /** Checked before each send and each cursor move: another replica may deliver once the lease ran out. */
  const holding = (): boolean => Date.now() < heldUntil;

  /** Takes or renews the lease and starts every endpoint with something to send; the runs it started. */
  async function dispatch(): Promise<Promise<void>[]> {
    const started: Promise<void>[] = [];
    if (!(await renew())) return started;
    for await (const ws of deps.store.workspaces()) {
      for (const ep of await deps.store.endpoints(ws)) {
        const key = `${ws} ${ep.id}`;
        if (!ep.enabled || busy.has(key)) continue;
        if (busy.size >= WEBHOOK_CONCURRENCY) return started;
        const run = deliverFor(ws, ep)
          .catch((err: unknown) => deps.onError?.(err))
          .finally(() => busy.delete(key));
        busy.set(key, run);
        started.push(run);
      }
    }
    return started;
  }

  async function turn(): Promise<void> {
    await Promise.all(await dispatch());
  }

  /** Sends what one endpoint has waiting, in order, stopping at the first failure. */
  async function deliverFor(ws: string, ep: WebhookEndpoint): Promise<void> {
    const runEnds = performance.now() + WEBHOOK_ENDPOINT_RUN_MS;
    const state = await deps.store.state(ws, ep.id);
    if (state.failing || state.nextAt > now()) return;
    if (!holding()) return;
    if (state.testPending) {
      const ok = await attempt(ws, ep, `msg_test_${randomUUID()}`, 'webhook.test', { workspace: ws, test: true }, 1);
      await deps.store.setState(ws, ep.id, { test: 0 });
      if (!ok) return;
    }
    const entries = (await deps.redis.xrange(K.auditLog(ws), `(${state.cursor}`, '+', 'COUNT', WEBHOOK_READ_BATCH)) as StreamEntry[];
    let cursor = state.cursor;
    let attempts = state.attempts;
    for (const [id, fields] of entries) {
      if (!holding() || performance.now() > runEnds) break;
      const f = fieldsOf(fields);
      const type = eventOf(f['action'] ?? '');
      if (type && ep.events.includes(type)) {
        const ok = await attempt(ws, ep, `msg_${id}_${ws}`, type, dataOf(ws, id, f), attempts + 1);
        if (!ok) {
          const failedAt = state.firstFailureAt || now();
          const delay = WEBHOOK_RETRY_DELAYS_MS[Math.min(attempts, WEBHOOK_RETRY_DELAYS_MS.length - 1)]!;
          const failing = now() + delay - failedAt > WEBHOOK_RETRY_WINDOW_MS;
          if (!holding()) return;
          await deps.store.setState(ws, ep.id, {
            cursor,
            attempts: attempts + 1,
            firstFailureAt: failedAt,
            nextAt: now() + delay,
            failing: failing ? 1 : 0,
          });
          return;
        }
        attempts = 0;
        state.firstFailureAt = 0;
      }
      if (!holding()) return;
      cursor = id;
      if (type) await deps.store.setState(ws, ep.id, { cursor, attempts: 0, firstFailureAt: 0, nextAt: 0, lastError: '' });
    }
    if (cursor !== state.cursor && holding()) await deps.store.setState(ws, ep.id, { cursor });
  }

  /** One POST, logged; true on a 2xx. */
  async function attempt(ws: string, ep: WebhookEndpoint, messageId: string, type: string, data: object, n: number): Promise<boolean> {
    const at = now();
    const body = JSON.stringify({ type, timestamp: new Date(at).toISOString(), data });
    const headers = signedHeaders(await deps.store.signingSecrets(ws, ep.id), messageId, Math.floor(at / 1000), body);
    const t0 = performance.now();
    let status: number | null = null;
    let error: string | null = null;
    try {
      status = (await deps.send(ep.url, { headers, body })).status;
      if (status < 200 || status > 299) error = `the receiver answered ${status}`;
    } catch (err) {
      error = (err instanceof Error ? err.message : String(err)).slice(0, WEBHOOK_LOG_ERROR_MAX);
    }
    const durationMs = Math.round(performance.now() - t0);
    await deps.store.log(ws, ep.id, { at, messageId, type, attempt: n, status, durationMs, error });
    if (error) await deps.store.setState(ws, ep.id, { lastError: error });
    return error === null;
  }

  return {
    turn,
    start() {
      // The lease is renewed on its own timer while held, however long a delivery takes.
      renewer = setInterval(() => {
        if (holding()) renew().catch((err: unknown) => deps.onError?.(err));
      }, WEBHOOK_LEASE_RENEW_MS);
      renewer.unref();
      // The next turn does not wait for this one's deliveries: endpoints still running are skipped.
      const tick = (): void => {
        timer = setTimeout(
          () =>
            void dispatch()
              .catch((err: unknown) => deps.onError?.(err))
              .finally(() => timer && tick()),
          WEBHOOK_POLL_MS,
        );
        timer.unref();
      };
      tick();
    },
    async stop() {
      if (timer) clearTimeout(timer);
      if (renewer) clearInterval(renewer);
      timer = null;
      renewer = null;
      await Promise.all(busy.values());
      // Handing the lease back lets another replica take over at once; if Redis does not answer,
      // the lease simply runs out (WEBHOOK_LEASE_MS) and the shutdown does not wait for it.
      const release = releaseLease(deps.redis, WK.lease(), me).catch((err: unknown) => deps.onError?.(err));
      let timeout: NodeJS.Timeout | undefined;
      await Promise.race([release, new Promise((ok) => (timeout = setTimeout(ok, RELEASE_WAIT_MS)))]);
      clearTimeout(timeout);
    },
  };
}

function fieldsOf(flat: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]!] = flat[i + 1]!;
  return out;
}

/** The event's `data`: the audit entry without its source address (docs/webhooks.md "Payload"). */
function dataOf(ws: string, id: string, f: Record<string, string>): object {
  let detail: unknown = {};
  try {
    detail = JSON.parse(f['detail'] ?? '{}');
  } catch {
    // An entry's detail is always JSON (AuditLog.record); an unreadable one is sent empty.
  }
  return {
    workspace: ws,
    auditId: id,
    action: f['action'],
    actor: f['actor'],
    target: f['target'],
    at: new Date(Number(f['at'] ?? 0)).toISOString(),
    detail,
  };
}
