/**
 * CORS for dynamic client registration (RFC 7591), which oidc-provider serves without it: a client
 * running in a browser (the MCP Inspector) registers from its own origin, and without a preflight
 * answer its browser never sends the POST (`svc doctor` reports it: docs/cli.md "svc doctor").
 * Open registration takes no credential and no cookie, so any origin may call it, as any origin
 * may read the discovery documents that name it (docs/auth-service.md "Client registration").
 */
import type { NextFunction, Request, Response } from 'express';

const PREFLIGHT = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'POST',
  'Access-Control-Allow-Headers': 'content-type',
  'Access-Control-Max-Age': '600',
};

/** The preflight's answer, and the header that lets the browser read the registration's answer. */
export function registrationCors(req: Request, res: Response, next: NextFunction): void {
  if (req.method === 'OPTIONS') {
    res.set(PREFLIGHT).status(204).end();
    return;
  }
  res.set('Access-Control-Allow-Origin', '*');
  next();
}
