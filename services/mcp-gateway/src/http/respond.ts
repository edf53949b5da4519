/** Writing responses on the raw node:http path (the MCP and REST hot path). */
import type { ServerResponse } from 'node:http';
import type { JsonRpcId, SvcError } from '@svc/errors';
import { toJsonRpcError, toRestError } from '@svc/errors';
import { jsonText } from './json-text.ts';

export type Headers = Record<string, string | number>;

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Headers = {}): void {
  sendJsonText(res, status, jsonText(body), headers);
}

/** A body already in JSON text (jsonText, or an envelope joined around it). */
export function sendJsonText(res: ServerResponse, status: number, json: string, headers: Headers = {}): void {
  // An ASCII body goes out as a string, joined to the head in one write; one with other characters
  // is a two-byte string, encoded once into bytes instead (measured faster, docs/benchmarks.md).
  const length = Buffer.byteLength(json);
  const payload = length === json.length ? json : Buffer.from(json);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': length,
    'Cache-Control': 'no-store',
  });
  res.end(payload);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Headers = {}): void {
  res.writeHead(status, headers);
  res.end();
}

/** An error on an MCP endpoint: the real HTTP status with a JSON-RPC error body. */
export function sendRpcError(res: ServerResponse, err: SvcError, id: JsonRpcId, headers: Headers = {}): void {
  sendJson(res, err.status, toJsonRpcError(err, id), { ...headers, ...err.headers });
}

/** An error on a REST endpoint: {"error": {code, message, remedy}}. */
export function sendRestError(res: ServerResponse, err: SvcError, headers: Headers = {}): void {
  sendJson(res, err.status, toRestError(err), { ...headers, ...err.headers });
}
