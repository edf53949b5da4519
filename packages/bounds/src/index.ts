/**
 * @svc/bounds: the limits every request of both services meets before any work grows with its
 * input (docs/security.md "Bounds"): one JSON reader with depth and value limits, and the HTTP
 * server's header, time and connection limits, and how a stopping server drains.
 */
export * from './json.ts';
export * from './http-server.ts';
export * from './drain.ts';
export * from './tenant-cache.ts';
