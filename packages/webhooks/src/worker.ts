/**
 * The delivery worker (docs/webhooks.md "Delivery"). One replica at a time delivers: it holds a
 * Redis lease (SET NX PX, renewed every WEBHOOK_LEASE_RENEW_MS on its own timer, so a slow
 * delivery never lets it run out); another takes over WEBHOOK_LEASE_MS after the holder stops
 * renewing, and the holder sends nothing and moves no cursor once its lease may have run out.
 *
 * Fair delivery (docs/webhooks.md "Fair delivery"): a turn goes on with the walk where the last one
 * stopped and starts a run (endpoint-run.ts) for each endpoint that has work, checked cheaply first
 * (pending.ts: an idle endpoint takes no slot), while a slot of the WEBHOOK_CONCURRENCY pool is free
 * and the workspace has fewer than WEBHOOK_WORKSPACE_SLOTS runs in flight. A turn does not wait for
 * its runs (a running endpoint is skipped), and a run ends at its deadline (WEBHOOK_ENDPOINT_RUN_MS).
 */
import { randomUUID } from 'node:crypto';
import type { AuditLog, Redis } from '@svc/accounts';
import { holdLease, releaseLease } from '@svc/limits';
import {
  WEBHOOK_CONCURRENCY,
  WEBHOOK_LEASE_MS,
  WEBHOOK_LEASE_RENEW_MS,
  WEBHOOK_POLL_MS,
  WEBHOOK_TURN_WORKSPACES,
  WEBHOOK_WALK_BATCH,
  WEBHOOK_WORKSPACE_SLOTS,
} from './bounds.ts';
import { endpointRun, type WebhookSend } from './endpoint-run.ts';
import { WK } from './keys.ts';
import { endpointsWithWork } from './pending.ts';
import type { WebhookEndpoint, WebhookStore } from './store.ts';
import { workspaceWalk, type WalkStop } from './walk.ts';

export type { WebhookSend } from './endpoint-run.ts';

export interface WorkerDeps {
  redis: Redis;
  store: WebhookStore;
  send: WebhookSend;
  /** Where a 410's disabling is recorded (`webhook.disabled`): the service's accounts' audit log. */
  audit: Pick<AuditLog, 'record'>;
  now?: () => number;
  /** Failures of the worker itself (Redis unreachable): logged, the next turn tries again. */
  onError?: (err: unknown) => void;
}

/** A run a turn started: one endpoint's, ending when `done` settles. */
export interface WebhookRun {
  workspace: string;
  endpoint: string;
  done: Promise<void>;
}

export interface WebhookWorker {
  /** One turn as the timer takes it: take or renew the lease, then start the runs there are slots for; resolves once they are started. */
  dispatch(): Promise<WebhookRun[]>;
  /** One turn, resolving when its runs are done. */
  turn(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
}

/** How long a stopping worker waits to hand its lease back. */
const RELEASE_WAIT_MS = 1_000;

export function createWebhookWorker(deps: WorkerDeps): WebhookWorker {
  const now = deps.now ?? Date.now;
  const me = randomUUID();
  /** Runs in flight, by `<workspace> <endpoint id>`, and how many each workspace has. */
  const busy = new Map<string, Promise<void>>();
  const inWorkspace = new Map<string, number>();
  const walk = workspaceWalk((cursor) => deps.store.scanWorkspaces(cursor));
  let timer: NodeJS.Timeout | null = null;
  /** Set by stop(): no run starts after it, and stop() waits for the turn in progress. */
  let stopping = false;
  let dispatching: Promise<unknown> = Promise.resolve();

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
  const run = endpointRun({ redis: deps.redis, store: deps.store, send: deps.send, audit: deps.audit, now, holding });
  const key = (ws: string, id: string) => `${ws} ${id}`;

  function begin(ws: string, ep: WebhookEndpoint): WebhookRun {
    const k = key(ws, ep.id);
    inWorkspace.set(ws, (inWorkspace.get(ws) ?? 0) + 1);
    const done = run(ws, ep)
      .catch((err: unknown) => deps.onError?.(err))
      .finally(() => {
        busy.delete(k);
        const left = (inWorkspace.get(ws) ?? 1) - 1;
        if (left > 0) inWorkspace.set(ws, left);
        else inWorkspace.delete(ws);
      });
    busy.set(k, done);
    return { workspace: ws, endpoint: ep.id, done };
  }

  /** The endpoints of a stop that may start: with work, not running, not had their turn this pass. */
  function ready(stop: WalkStop): Promise<WebhookEndpoint[]> {
    const skip = (id: string) => busy.has(key(stop.ws, id)) || (stop.after !== null && id <= stop.after);
    return endpointsWithWork(deps.redis, deps.store, stop.ws, now(), skip);
  }

  async function dispatch(): Promise<WebhookRun[]> {
    const started: WebhookRun[] = [];
    if (stopping || !(await renew())) return started;
    const seen = new Set<string>();
    let visited = 0;
    while (busy.size < WEBHOOK_CONCURRENCY && visited < WEBHOOK_TURN_WORKSPACES) {
      const stops = await walk.take(Math.min(WEBHOOK_WALK_BATCH, WEBHOOK_TURN_WORKSPACES - visited), seen);
      if (stops.length === 0) break;
      visited += stops.length;
      const work = await Promise.all(stops.map(ready));
      for (const [i, stop] of stops.entries()) {
        let after = stop.after;
        for (const ep of work[i]!) {
          if (stopping) return started;
          if ((inWorkspace.get(stop.ws) ?? 0) >= WEBHOOK_WORKSPACE_SLOTS) break;
          if (busy.size >= WEBHOOK_CONCURRENCY) {
            // The pool is full: the next turn begins here, with this workspace's endpoints after the last started.
            walk.putBack([{ ws: stop.ws, after }, ...stops.slice(i + 1)]);
            return started;
          }
          started.push(begin(stop.ws, ep));
          after = ep.id;
        }
      }
    }
    return started;
  }

  async function turn(): Promise<void> {
    await Promise.all((await dispatch()).map((r) => r.done));
  }

  return {
    dispatch,
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
          () => void (dispatching = dispatch()).catch((err: unknown) => deps.onError?.(err)).finally(() => timer && tick()),
          WEBHOOK_POLL_MS,
        );
        timer.unref();
      };
      tick();
    },
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      if (renewer) clearInterval(renewer);
      timer = null;
      renewer = null;
      // The turn in progress starts nothing more; its runs, and those before it, end before Redis closes.
      await dispatching.catch(() => {});
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
