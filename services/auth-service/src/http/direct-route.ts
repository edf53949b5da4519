/**
 * A route whose steps run as one flat list in front of the Express app (docs/auth-service.md "The
 * token endpoint's direct route"). The app stays the one place a step is declared; this only skips
 * Express's router, which otherwise matches every layer mounted ahead of the route against the
 * request's path (the front steps, the health routes, the body readers' path lists) on every grant.
 * A request that is not exactly `method path` (another method, another spelling of the path, the
 * device grant's alias) goes to the app, where the same steps meet it on the route.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Express, NextFunction, Request, RequestHandler, Response } from 'express';

export interface DirectRoute {
  method: string;
  /** The path exactly as routes.ts declares it; a query string may follow. */
  path: string;
  /** Every step the app runs for this request, in the app's order, the route's own last. */
  steps: readonly RequestHandler[];
  /** The app's error step for this route (the one Express would call). */
  errors: ErrorRequestHandler;
  /** The answer when the error step fails too, or passes the error on (Express's final handler's place). */
  unanswered: (res: Response) => void;
}

/** The request listener: `route` run directly, anything else handed to `app`. */
export function withDirectRoute(app: Express, route: DirectRoute): RequestListener {
  const { method, path } = route;
  const withQuery = `${path}?`;
  return function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? '';
    if (req.method !== method || (url !== path && !url.startsWith(withQuery))) return void app(req, res);
    run(app, req, res, route);
  };
}

function run(app: Express, rawReq: IncomingMessage, rawRes: ServerResponse, route: DirectRoute): void {
  const { steps, errors, unanswered } = route;
  // What Express's app.handle and its router set up before the first layer (express/lib/application.js,
  // router/index.js): the request and answer as Express's own, with their locals.
  const req = Object.setPrototypeOf(rawReq, app.request) as Request;
  const res = Object.setPrototypeOf(rawRes, app.response) as Response;
  req.res = res;
  res.req = req;
  res.locals = Object.create(null) as Response['locals'];
  req.originalUrl = req.url;
  req.baseUrl = '';
  req.params = {};
  let i = 0;
  let failed = false;
  const fail = (err: unknown): void => {
    // An error goes to the error step once; a step failing after that finds the answer decided.
    if (failed) return;
    failed = true;
    const last = (): void => {
      if (!res.headersSent) unanswered(res);
      else res.destroy();
    };
    // The error step passing it on, or failing itself: the route's own last answer, never the
    // error's text or stack (which Express's final handler prints outside production).
    try {
      errors(err, req, res, last);
    } catch {
      last();
    }
  };
  const next: NextFunction = (err?: unknown) => {
    // No step of a direct route skips the rest with next('route') or next('router'): both would be
    // errors here, as any other value.
    if (err !== undefined && err !== null) return fail(err);
    const step = steps[i++];
    if (!step) return;
    try {
      const pending = step(req, res, next) as unknown;
      // Express 5: a step's rejected promise is its error (one rejected with nothing, a plain one).
      if (pending instanceof Promise) pending.catch((err: unknown) => fail(err ?? new Error('Rejected promise')));
    } catch (thrown) {
      fail(thrown);
    }
  };
  req.next = next;
  next();
}
