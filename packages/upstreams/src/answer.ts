/**
 * An upstream's answer to one JSON-RPC request over Streamable HTTP (MCP "Transports"): a JSON body,
 * or an event stream whose events carry messages (notifications, requests of its own, and at last
 * the response). Read from a body already bounded in size; the events are counted, so a stream of
 * notifications without an answer fails as a flood (UPSTREAM_LIMITS.streamEvents).
 */
import { UPSTREAM_LIMITS } from './limits.ts';

/** A JSON-RPC error as an upstream sent it. */
export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** Why a request to an upstream failed, as the caller is told it (docs/upstream-servers.md "Failures"). */
export type FailureReason =
  'timeout' | 'unreachable' | 'address' | 'busy' | 'refused' | 'status' | 'invalid' | 'flood' | 'too_large' | 'rpc' | 'breaker' | 'session';

export class UpstreamFailure extends Error {
  override name = 'UpstreamFailure';
  readonly reason: FailureReason;
  readonly rpcError: RpcError | undefined;
  constructor(reason: FailureReason, message: string, rpcError?: RpcError) {
    super(message);
    this.reason = reason;
    this.rpcError = rpcError;
  }
}

/** The response's result, and what the stream said on the way (a changed tool list). */
export interface Answer {
  result: Record<string, unknown>;
  listChanged: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The messages of an event stream's text (HTML "Server-sent events": `data:` lines, blank-line separated). */
function* events(text: string): Generator<string> {
  let data: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data.length) yield data.join('\n');
      data = [];
    } else if (line.startsWith('data:')) data.push(line.slice(line[5] === ' ' ? 6 : 5));
  }
  if (data.length) yield data.join('\n');
}

/** The messages of a body: one JSON value (a message or a batch), or an event stream's. */
function messagesOf(body: string, stream: boolean): unknown[] {
  if (!stream) {
    const value = parseJson(body);
    return Array.isArray(value) ? value : [value];
  }
  const out: unknown[] = [];
  for (const data of events(body)) {
    if (out.length >= UPSTREAM_LIMITS.streamEvents)
      throw new UpstreamFailure('flood', `the upstream sent more than ${UPSTREAM_LIMITS.streamEvents} events before its answer`);
    out.push(parseJson(data));
  }
  return out;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UpstreamFailure('invalid', 'the upstream answered something that is not JSON-RPC');
  }
}

/** The response to request `id` in `body` (a JSON or event-stream answer with HTTP 200). */
export function readAnswer(body: string, contentType: string, id: number): Answer {
  const stream = contentType.toLowerCase().includes('text/event-stream');
  let listChanged = false;
  for (const message of messagesOf(body, stream)) {
    if (!isObject(message)) throw new UpstreamFailure('invalid', 'the upstream answered something that is not JSON-RPC');
    if (message['method'] === 'notifications/tools/list_changed') listChanged = true;
    if (message['id'] !== id || ('method' in message && !('result' in message) && !('error' in message))) continue;
    if (isObject(message['error'])) {
      const e = message['error'];
      throw new UpstreamFailure('rpc', typeof e['message'] === 'string' ? e['message'] : 'the upstream answered an error', {
        code: typeof e['code'] === 'number' ? e['code'] : -32603,
        message: typeof e['message'] === 'string' ? e['message'].slice(0, 500) : 'error',
        ...(e['data'] === undefined ? {} : { data: e['data'] }),
      });
    }
    if (isObject(message['result'])) return { result: message['result'], listChanged };
    throw new UpstreamFailure('invalid', 'the upstream answered without a result');
  }
  throw new UpstreamFailure('invalid', 'the upstream ended its answer without a response to the request');
}
