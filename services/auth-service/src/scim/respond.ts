/**
 * What the SCIM steps share about a request: who sent it (the workspace's token, set by the
 * authentication step) and the base URL its resources' locations start with; and how an answer
 * is sent (RFC 7644 §3.1: `application/scim+json`).
 */
import type { Request, Response } from 'express';
import type { ScimCaller } from './provisioning.ts';

const CONTEXT = new WeakMap<Request, { caller: ScimCaller; base: string }>();

/** Records the authenticated caller of `req` (the authentication step). */
export function setCaller(req: Request, caller: ScimCaller, base: string): void {
  CONTEXT.set(req, { caller, base });
}

function context(req: Request) {
  const c = CONTEXT.get(req);
  // The routes run only behind the authentication step: a request without a caller is a wiring error.
  if (!c) throw new Error('SCIM route reached without authentication');
  return c;
}

export const callerOf = (req: Request): ScimCaller => context(req).caller;
export const baseOf = (req: Request): string => context(req).base;

export function sendScim(res: Response, status: number, body: unknown, location?: string): void {
  if (location) res.set('Location', location);
  res.status(status).type('application/scim+json').send(JSON.stringify(body));
}
