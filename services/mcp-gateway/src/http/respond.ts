/**
 * Writing responses on node:http: the pipeline's writers (pipeline/run.ts) end here. A complete
 * answer's status and headers are settled at once; its bytes are sent at the end of the event
 * loop's turn, with every other answer of that turn (docs/gateway-pipeline.md "Answers sent per
 * turn").
 */
import type { ServerResponse } from 'node:http';
import { jsonText } from './json-text.ts';

/** The answers settled in this turn of the event loop, sent when its poll phase is done. */
let ending: { res: ServerResponse; body: string | Buffer | undefined }[] = [];

/** Sends `body` as the end of `res` once this turn has read and answered all it polled. */
function endThisTurn(res: ServerResponse, body?: string | Buffer): void {
  if (ending.length === 0) setImmediate(endAll);
  ending.push({ res, body });
}

function endAll(): void {
  const answers = ending;
  ending = [];
  for (const { res, body } of answers) {
    try {
      res.end(body);
    } catch {
      // Its connection broke in a way node:http reports by throwing: nothing more can be sent on it.
      res.destroy();
    }
  }
}

export type Headers = Record<string, string | number>;

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Headers = {}): void {
  sendJsonText(res, status, jsonText(body), headers);
}

/**
 * A body already in JSON text (jsonText, or an envelope joined around it), or another text of
 * `contentType`. Not to be stored unless the headers say otherwise (the public metadata does).
 * `bytes`: the text's UTF-8 length when the caller knows it (http/json-text.ts SizedText), so a text
 * joined from parts is not flattened to be measured before it is written.
 */
export function sendJsonText(
  res: ServerResponse,
  status: number,
  json: string,
  headers: Headers = {},
  contentType = 'application/json',
  bytes: number | null = null,
): void {
  // An ASCII body goes out as a string, joined to the head in one write; one with other characters
  // is a two-byte string, encoded once into bytes instead (measured faster, docs/benchmarks.md).
  const length = bytes ?? Buffer.byteLength(json);
  const payload = length === json.length ? json : Buffer.from(json);
  // The spread first: V8 copies an object literal that starts with one fast (measured, docs/benchmarks.md).
  res.writeHead(status, {
    ...headers,
    'Content-Type': contentType,
    'Content-Length': length,
    'Cache-Control': headers['Cache-Control'] ?? 'no-store',
  });
  endThisTurn(res, payload);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Headers = {}): void {
  res.writeHead(status, headers);
  endThisTurn(res);
}
