/**
 * The tools lane's guarded request (docs/upstream-servers.md "Bounds"). A forwarded tool call is on
 * its caller's request path, so it meets the guarded client's checks (outbound-guards.ts: every
 * address checked and the socket pinned to them, a place of the workspace's share of connections)
 * without the fetch API's costs (a WHATWG Headers and Response per exchange, the body read back
 * through a web stream, signals combined per call): a node:http request over kept-alive
 * connections, one deadline timer for the whole exchange, and the answer's body handed to a reader
 * piece by piece as it arrives, bounded in size. So an event stream (MCP 2025-11-25 "Transports": a
 * response may come as one) is judged event by event while it is still open, and the exchange ends
 * as soon as the reader has what it needs.
 */
import type { LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { OutboundLane } from './outbound-bounds.ts';
import {
  bareHost,
  checkedAddresses,
  CimdFetchRefused,
  connectionPlace,
  literalAddresses,
  pinnedLookup,
  type OutboundGuard,
  type Resolver,
} from './outbound-guards.ts';
import type { OutboundPools } from './outbound-pools.ts';
import type { Release } from './shares.ts';

export { CimdFetchRefused } from './outbound-guards.ts';

/** An answer's status and headers (node:http's: names in lower case). */
export interface AnswerHead {
  status: number;
  headers: IncomingHttpHeaders;
}

/** Reads one answer's body as it arrives; what it throws ends the exchange and is what the request rejects with. */
export interface BodyReader<T> {
  /** A piece of the body; a value (anything but undefined) ends the exchange with it, the rest unread. */
  data(chunk: Buffer): T | undefined;
  /** The body ended: the exchange's value. */
  end(): T;
}

/** One request: what is sent, whose share of the lane it takes, and how long the whole exchange may take. */
export interface GuardedRequest {
  method: string;
  headers: Record<string, string>;
  body: string;
  tenant: string;
  timeoutMs: number;
}

export interface GuardedRequestOptions {
  /** Which addresses are refused (isSpecialUseAddress, less what the operator allows). */
  refuse: (address: string) => boolean;
  lane: OutboundLane;
  /** The most of a body read; past it the exchange is refused (`too_large`). */
  maxBytes: number;
  /** Name resolution instead of the pools' lookups: tests answer names with hostile addresses. */
  resolve?: Resolver;
  /** Default the process's (sharedOutboundPools). */
  pools?: OutboundPools;
}

/** Sends `request` to `url`; `read` is given the answer's head and returns the reader of its body. */
export type GuardedRequester = <T>(url: string, request: GuardedRequest, read: (head: AnswerHead) => BodyReader<T>) => Promise<T>;

/** The exchange past its time: what the caller rejects with. */
const timedOut = () => new CimdFetchRefused('the request took longer than its time allows', undefined, 'timeout');

/** The state of one exchange: settled once, by its answer, its reader, its deadline or its connection. */
class Exchange<T> {
  settled = false;
  release: Release | null = null;
  req: ClientRequest | null = null;
  readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly ok: (value: T) => void;
  private readonly fail: (err: unknown) => void;

  constructor(ok: (value: T) => void, fail: (err: unknown) => void, timeoutMs: number) {
    this.ok = ok;
    this.fail = fail;
    // One timer for the whole exchange: resolution, the wait for a place, the connection and the body.
    this.timer = setTimeout(() => {
      this.controller.abort();
      this.finish(timedOut());
    }, timeoutMs).unref();
  }

  /** Settles the exchange: its place is given back; on a failure its connection is closed, never reused. */
  finish(err: unknown, value?: T): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.release?.();
    this.release = null;
    if (err === null) this.ok(value as T);
    else {
      this.req?.destroy();
      this.fail(err);
    }
  }
}

/** The tools lane's request: the guards of outbound-guards.ts, kept-alive connections, the body read as it comes. */
export function createGuardedRequest(options: GuardedRequestOptions): GuardedRequester {
  const guard: OutboundGuard = { refuse: options.refuse, resolve: options.resolve, lane: options.lane, pools: options.pools };
  const { maxBytes } = options;
  // One agent per client: a kept connection was opened to an address checked when it was opened.
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

  /** The checked addresses and a place of the tenant's share; then the request goes out. */
  async function start<T>(ex: Exchange<T>, url: URL, request: GuardedRequest, read: (head: AnswerHead) => BodyReader<T>) {
    const host = bareHost(url.hostname);
    const addresses = literalAddresses(guard, host) ?? (await checkedAddresses(guard, host, request.tenant, ex.controller.signal));
    if (ex.settled) return;
    const release = await connectionPlace(guard, request.tenant, ex.controller.signal);
    if (ex.settled) return release();
    ex.release = release;
    send(ex, url, request, addresses, read);
  }

  function send<T>(
    ex: Exchange<T>,
    url: URL,
    request: GuardedRequest,
    addresses: LookupAddress[],
    read: (head: AnswerHead) => BodyReader<T>,
  ) {
    const https = url.protocol === 'https:';
    const host = bareHost(url.hostname);
    const req = (https ? httpsRequest : httpRequest)(url, {
      method: request.method,
      headers: request.headers,
      agent: https ? agents.https : agents.http,
      // An IP literal never reaches `lookup`; it was checked above.
      lookup: pinnedLookup(addresses) as never,
      ...(https && isIP(host) === 0 ? { servername: host } : {}),
    });
    ex.req = req;
    req.on('error', (err) => ex.finish(err));
    req.on('response', (res) => readAnswer(ex, res, read));
    req.end(request.body);
  }

  /** The answer: its head to `read`, then its body piece by piece within maxBytes. */
  function readAnswer<T>(ex: Exchange<T>, res: IncomingMessage, read: (head: AnswerHead) => BodyReader<T>) {
    // Once the exchange is settled nothing more of the answer matters, but an error must still be heard.
    res.on('error', (err) => ex.finish(err));
    res.on('close', () => ex.finish(new Error('the connection closed before the answer ended')));
    const status = res.statusCode ?? 0;
    if (status < 200 || status > 599) return ex.finish(new CimdFetchRefused(`unexpected status ${status}`));
    if (Number(res.headers['content-length'] ?? 0) > maxBytes) return ex.finish(tooLarge(maxBytes));
    let reader: BodyReader<T>;
    try {
      reader = read({ status, headers: res.headers });
    } catch (err) {
      return ex.finish(err);
    }
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      if (ex.settled) return;
      size += chunk.length;
      if (size > maxBytes) return ex.finish(tooLarge(maxBytes));
      let value: T | undefined;
      try {
        value = reader.data(chunk);
      } catch (err) {
        return ex.finish(err);
      }
      if (value === undefined) return;
      ex.finish(null, value);
      // The answer is had: an end already in the bytes received is read in this turn, and the
      // connection goes back to its agent; a stream left open past it is closed.
      setImmediate(() => {
        if (!res.complete) res.destroy();
      });
    });
    res.on('end', () => {
      if (ex.settled) return;
      try {
        ex.finish(null, reader.end());
      } catch (err) {
        ex.finish(err);
      }
    });
  }

  return function guardedRequest<T>(input: string, request: GuardedRequest, read: (head: AnswerHead) => BodyReader<T>): Promise<T> {
    const url = new URL(input);
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      return Promise.reject(new CimdFetchRefused(`${url.protocol} is not requested`));
    return new Promise<T>((ok, fail) => {
      const ex = new Exchange<T>(ok, fail, request.timeoutMs);
      start(ex, url, request, read).catch((err: unknown) => ex.finish(err));
    });
  };
}

const tooLarge = (maxBytes: number) => new CimdFetchRefused(`the answer is more than ${maxBytes} bytes`, undefined, 'too_large');
