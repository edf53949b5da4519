/**
 * An upstream's answer to one JSON-RPC request over Streamable HTTP (MCP 2025-11-25 "Transports"):
 * a JSON body, or an event stream whose events carry messages (notifications, requests of its own,
 * and at last the response). An event stream is read as it arrives (@svc/bounds
 * guarded-request.ts), each event judged when it comes: the events are counted, so a stream of
 * notifications kept open without an answer fails as a flood once past
 * UPSTREAM_LIMITS.streamEvents, whatever its size; the upstream's progress on the request is handed
 * on as it comes; and the answer is had as soon as its response arrives.
 */
import { StringDecoder } from 'node:string_decoder';
import { jsonValues } from '@svc/bounds';
import type { AnswerHead, BodyReader } from '@svc/bounds/guarded-request.ts';
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

/** The upstream's progress on a request (MCP 2025-11-25 "Progress"), as svc relays it: without the token. */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** What the answer is read for: the request's id, and where the upstream's progress on it goes. */
export interface Expected {
  id: number;
  /** The request carried a session id: a 404 means the upstream forgot the session. */
  inSession: boolean;
  /** The progressToken svc put on the request, and what is given each notification of it. */
  progress?: { token: number; relay: (p: Progress) => void } | undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const notJsonRpc = () => new UpstreamFailure('invalid', 'the upstream answered something that is not JSON-RPC');

/**
 * The JSON of an answer, parsed within what is left of its bounds (UPSTREAM_LIMITS.answerJson):
 * each event of a stream spends from the same count, so one answer of many events costs no more
 * to parse than one of a single message.
 */
class AnswerJson {
  private left: number = UPSTREAM_LIMITS.answerJson.maxValues;

  parse(text: string): unknown {
    const counted = jsonValues(text, { maxDepth: UPSTREAM_LIMITS.answerJson.maxDepth, maxValues: this.left });
    if (typeof counted !== 'number')
      throw new UpstreamFailure(
        'too_large',
        counted.bound === 'depth'
          ? `the upstream answered JSON nested more than ${counted.limit} levels deep`
          : `the upstream answered more than ${UPSTREAM_LIMITS.answerJson.maxValues} JSON values`,
      );
    this.left -= counted;
    try {
      return JSON.parse(text);
    } catch {
      throw notJsonRpc();
    }
  }
}

/** The progress a notifications/progress carries for `token`, or null when it is not for this request or not well formed. */
function progressOf(params: unknown, token: number): Progress | null {
  if (!isObject(params) || params['progressToken'] !== token) return null;
  const { progress, total, message } = params;
  if (typeof progress !== 'number' || !Number.isFinite(progress)) return null;
  const out: Progress = { progress };
  if (typeof total === 'number' && Number.isFinite(total)) out.total = total;
  if (typeof message === 'string') out.message = message;
  return out;
}

/** The messages of one answer, in order: the response to the request ends them. */
class Messages {
  listChanged = false;
  /** The answer's JSON, every message of it parsed within the same bounds. */
  readonly json = new AnswerJson();
  private readonly expected: Expected;
  constructor(expected: Expected) {
    this.expected = expected;
  }

  /** One message: the answer when it is the response to the request, else undefined. */
  take(message: unknown): Answer | undefined {
    if (!isObject(message)) throw notJsonRpc();
    const method = message['method'];
    if (method === 'notifications/tools/list_changed') this.listChanged = true;
    else if (method === 'notifications/progress' && this.expected.progress) {
      const progress = progressOf(message['params'], this.expected.progress.token);
      if (progress) this.expected.progress.relay(progress);
    }
    if (message['id'] !== this.expected.id || (method !== undefined && !('result' in message) && !('error' in message))) return undefined;
    if (isObject(message['error'])) {
      const e = message['error'];
      throw new UpstreamFailure('rpc', typeof e['message'] === 'string' ? e['message'] : 'the upstream answered an error', {
        code: typeof e['code'] === 'number' ? e['code'] : -32603,
        message: typeof e['message'] === 'string' ? e['message'].slice(0, 500) : 'error',
        ...(e['data'] === undefined ? {} : { data: e['data'] }),
      });
    }
    if (isObject(message['result'])) return { result: message['result'], listChanged: this.listChanged };
    throw new UpstreamFailure('invalid', 'the upstream answered without a result');
  }

  /** A JSON body: one message or a batch. */
  fromJson(text: string): Answer | undefined {
    const value = this.json.parse(text);
    for (const message of Array.isArray(value) ? value : [value]) {
      const answer = this.take(message);
      if (answer) return answer;
    }
    return undefined;
  }
}

const ended = () => new UpstreamFailure('invalid', 'the upstream ended its answer without a response to the request');

/** A JSON body, read whole (the guarded request bounds its size) and judged at its end by `judge`. */
function wholeBody(judge: (text: string) => Answer): BodyReader<Answer> {
  const chunks: Buffer[] = [];
  return {
    data(chunk) {
      chunks.push(chunk);
      return undefined;
    },
    end: () => judge((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8')),
  };
}

const LINE_END = /[\r\n]/g;

/**
 * The data of an event stream's events as its text arrives in pieces (HTML "Server-sent events",
 * "Interpreting an event stream"): lines end with CRLF, LF or CR; `data` fields are joined with LF;
 * a blank line dispatches the event; comments and the other fields (`event`, `id`, `retry`) are not
 * needed here. A line split across pieces is kept as its pieces and joined once, so a long line
 * costs its length, however many pieces bring it.
 */
class EventData {
  private partial: string[] = [];
  private data: string[] | null = null;
  /** The last piece ended with CR: an LF starting the next one ends the same line. */
  private afterCr = false;

  /** Feeds `text`; `onEvent` is given each event's data, and feeding stops at the first value it returns. */
  feed<T>(text: string, onEvent: (data: string) => T | undefined): T | undefined {
    let pos = this.afterCr && text.charCodeAt(0) === 10 ? 1 : 0;
    this.afterCr = false;
    LINE_END.lastIndex = pos;
    for (let m = LINE_END.exec(text); m !== null; m = LINE_END.exec(text)) {
      const at = m.index;
      let next = at + 1;
      if (text.charCodeAt(at) === 13) {
        if (next === text.length) this.afterCr = true;
        else if (text.charCodeAt(next) === 10) next += 1;
      }
      const value = this.line(this.joined(text.slice(pos, at)), onEvent);
      pos = next;
      LINE_END.lastIndex = next;
      if (value !== undefined) return value;
    }
    if (pos < text.length) this.partial.push(text.slice(pos));
    return undefined;
  }

  /** The stream ended: a last line or event not closed by a blank line is read as if it were. */
  end<T>(onEvent: (data: string) => T | undefined): T | undefined {
    if (this.partial.length) this.line(this.joined(''), onEvent);
    return this.line('', onEvent);
  }

  private joined(tail: string): string {
    if (this.partial.length === 0) return tail;
    this.partial.push(tail);
    const line = this.partial.join('');
    this.partial = [];
    return line;
  }

  private line<T>(line: string, onEvent: (data: string) => T | undefined): T | undefined {
    if (line === '') {
      const data = this.data;
      this.data = null;
      return data === null ? undefined : onEvent(data.join('\n'));
    }
    const colon = line.indexOf(':');
    // A line starting with a colon is a comment; of the fields only `data` is read.
    if (colon === 0 || (colon === -1 ? line : line.slice(0, colon)) !== 'data') return undefined;
    const value = colon === -1 ? '' : line.charCodeAt(colon + 1) === 32 ? line.slice(colon + 2) : line.slice(colon + 1);
    (this.data ??= []).push(value);
    return undefined;
  }
}

/** An event stream, judged event by event: the response ends it; past UPSTREAM_LIMITS.streamEvents events it is a flood. */
function eventStream(messages: Messages): BodyReader<Answer> {
  const decoder = new StringDecoder('utf8');
  const lines = new EventData();
  let events = 0;
  const onEvent = (data: string): Answer | undefined => {
    if (++events > UPSTREAM_LIMITS.streamEvents)
      throw new UpstreamFailure('flood', `the upstream sent more than ${UPSTREAM_LIMITS.streamEvents} events before its answer`);
    // An event without data (one that only primes a reconnection with its id) carries no message.
    return data === '' ? undefined : messages.take(messages.json.parse(data));
  };
  return {
    data: (chunk) => lines.feed(decoder.write(chunk), onEvent),
    end() {
      const answer = lines.feed(decoder.end(), onEvent) ?? lines.end(onEvent);
      if (!answer) throw ended();
      return answer;
    },
  };
}

/**
 * The reader of an upstream's answer to request `expected.id`, given its head: a refusal of svc's
 * credentials or a forgotten session at once; another error status by its JSON-RPC error, when its
 * body holds one, else by its status; a 200 by its JSON body or its event stream.
 */
export function answerReader(head: AnswerHead, expected: Expected): BodyReader<Answer> {
  const { status } = head;
  if (status === 404 && expected.inSession) throw new UpstreamFailure('session', 'the upstream no longer knows the session');
  if (status === 401 || status === 403) throw new UpstreamFailure('refused', `the upstream refused svc's credentials (HTTP ${status})`);
  const type = (head.headers['content-type'] ?? '').toLowerCase();
  const messages = new Messages(expected);
  if (status !== 200) {
    if (!type.includes('json')) throw new UpstreamFailure('status', `the upstream answered HTTP ${status}`);
    return wholeBody((text) => {
      messages.fromJson(text);
      throw new UpstreamFailure('status', `the upstream answered HTTP ${status}`);
    });
  }
  if (type.includes('text/event-stream')) return eventStream(messages);
  return wholeBody((text) => {
    const answer = messages.fromJson(text);
    if (!answer) throw ended();
    return answer;
  });
}
