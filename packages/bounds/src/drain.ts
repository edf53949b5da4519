/**
 * How a service stops without failing a request (docs/operations.md "Rolling restarts"). On
 * SIGTERM it first stops being ready (`/readyz` answers 503 "draining") and answers every request
 * with `Connection: close`, while still accepting for SHUTDOWN_NOTICE_MS, so a proxy that checks
 * readiness stops sending to it and its pooled connections close one by one after their last
 * answer; only then does it stop accepting, finish what is in flight and exit. Closing the
 * listener at once would refuse the requests a proxy sends before it notices.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * Serving on after SIGTERM: longer than a proxy's health-check interval (ingress controllers and
 * load balancers check every second or so; Kubernetes withdraws the endpoint on deletion, during
 * the preStop sleep), short enough that notice + the 5 s in-flight drain stays within the
 * process's 10 s exit limit.
 */
const SHUTDOWN_NOTICE_MS = 2_000;

export interface Drain {
  /** True from SIGTERM on: /readyz answers 503. */
  readonly draining: boolean;
  /** Answers `server`'s requests with `Connection: close` while draining. */
  attach(server: Server): void;
  /** Stops being ready, then resolves after the notice period. */
  notice(ms?: number): Promise<void>;
}

/** A drain made before the server, so the app's readiness check can ask it. */
export function createDrain(): Drain {
  let draining = false;
  return {
    get draining() {
      return draining;
    },
    attach(server) {
      // Before the service's own handler, so the header is set before anything is written.
      server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
        if (draining) res.setHeader('Connection', 'close');
      });
    },
    async notice(ms = SHUTDOWN_NOTICE_MS) {
      draining = true;
      await delay(ms);
    },
  };
}
