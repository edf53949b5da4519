/**
 * oidc-provider reads request bodies itself (docs/auth-service.md "Bodies"). Our steps in front of
 * it must read some bodies first (JSON turned into a form, throttles keyed by client_id, page forms
 * checked for CSRF), after which the original stream is spent. Rather than leave the provider on its
 * "already parsed body" fallback, the provider is handed a fresh request that carries the body as
 * our steps left it, serialized for its content type, as a readable stream of its own.
 */
import { IncomingMessage } from 'node:http';
import type { Request } from 'express';

function serialize(req: Request): string | null {
  const body: unknown = req.body;
  if (typeof body === 'string') return body;
  if (body === null || typeof body !== 'object') return null;
  if (req.is('application/json')) return JSON.stringify(body);
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    for (const item of Array.isArray(v) ? v : [v]) if (typeof item === 'string') form.append(k, item);
  }
  return form.toString();
}

/** The request oidc-provider should see: `req` itself while its body is unread, else a replay. */
export function providerRequest(req: Request): IncomingMessage {
  if (!req.readableEnded) return req;
  const text = serialize(req);
  if (text === null) return req;
  const replay = new IncomingMessage(req.socket);
  replay.method = req.method;
  replay.url = req.url;
  replay.httpVersion = req.httpVersion;
  replay.httpVersionMajor = req.httpVersionMajor;
  replay.httpVersionMinor = req.httpVersionMinor;
  const headers = { ...req.headers, 'content-length': String(Buffer.byteLength(text)) };
  delete headers['transfer-encoding'];
  delete headers['content-encoding'];
  // The text was decoded by our steps; it is handed on as UTF-8 whatever charset it came in.
  const type = headers['content-type']?.split(';')[0]?.trim();
  if (type) headers['content-type'] = `${type}; charset=utf-8`;
  replay.headers = headers;
  // Complete, as the HTTP parser would mark it: an IncomingMessage that ends incomplete counts as
  // aborted, and node:http then destroys the socket it shares with the original request.
  replay.complete = true;
  replay.push(text);
  replay.push(null);
  return replay;
}
