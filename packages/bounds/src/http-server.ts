/**
 * The HTTP server's own bounds, the same for both services (docs/security.md "Bounds"): header
 * size, how long a connection may take to send its headers and its whole request, how long an idle
 * keep-alive connection is kept, and how many connections a process holds at once. Node checks the
 * two request timeouts only every `connectionsCheckingInterval` (30 s by default, which let a slow
 * connection live about 35 s); here every second.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';

export interface HttpServerBounds {
  /** Bytes of the request line and headers together: 431 past it. */
  maxHeaderBytes: number;
  /** Time to receive the request line and headers: 408 past it. */
  headersTimeoutMs: number;
  /** Time to receive the whole request, body included: 408 past it. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Connections held at once by one process; past it new ones are closed at once. */
  maxConnections: number;
  /** How often the two request timeouts are checked. */
  checkIntervalMs: number;
}

/**
 * Node's 16 KiB header limit; 10 s for headers and 30 s for a whole request (a 512 KiB body at
 * about 17 KB/s); 65 s of idle keep-alive, longer than the 60 s a proxy (ingress-nginx, cloud load
 * balancers) keeps an idle upstream connection, so the proxy always closes first and never sends a
 * request on a connection being closed; 4,096 connections per process (a pod has 20,000 or more
 * file descriptors). Connections per client address are the ingress's to limit (docs/operations.md).
 */
export const HTTP_SERVER_BOUNDS: HttpServerBounds = {
  maxHeaderBytes: 16 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 65_000,
  maxConnections: 4_096,
  checkIntervalMs: 1_000,
};

/** How long a refused connection may go on sending before it is cut (so the client reads the answer). */
const LINGER_MS = 1_000;

const STATUS_LINE: Record<string, string> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
  ERR_HTTP_HEADERS_TIMEOUT: '408 Request Timeout',
};

const REASON: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'the request headers are larger than the limit',
  ERR_HTTP_REQUEST_TIMEOUT: 'the request took longer than the limit to arrive',
  ERR_HTTP_HEADERS_TIMEOUT: 'the request headers took longer than the limit to arrive',
};

/**
 * A request the HTTP parser refused (malformed, headers too large, too slow) gets its status and a
 * one-line reason, then the connection is closed. Data the client is still sending is read and
 * dropped for a moment first: closing a socket with unread input sends a TCP reset, and the client
 * would lose the answer (RFC 9112 §9.6).
 */
function answerClientError(bounds: HttpServerBounds) {
  // The parser goes on reporting errors for input that keeps arriving: answer once.
  const answered = new WeakSet<Duplex>();
  return function onClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
    if (answered.has(socket)) return;
    if (!socket.writable || err.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    answered.add(socket);
    const code = err.code ?? '';
    const status = STATUS_LINE[code] ?? '400 Bad Request';
    const reason =
      code === 'HPE_HEADER_OVERFLOW'
        ? `${REASON[code]} (${bounds.maxHeaderBytes} bytes)`
        : (REASON[code] ?? 'the request could not be read as HTTP/1.1');
    const body = JSON.stringify({ error: { code: status.slice(0, 3) === '431' ? 'headers_too_large' : 'bad_request', message: reason } });
    socket.end(
      `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    socket.resume();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
}

/**
 * A node:http server with these bounds. Node closes an idle keep-alive connection
 * `keepAliveTimeoutBuffer` (1 s) after the keep-alive limit it announces, so a client never
 * reuses a connection the server is closing.
 */
export function createBoundedServer(handler: RequestListener, bounds: HttpServerBounds = HTTP_SERVER_BOUNDS): Server {
  const server = createServer(
    {
      maxHeaderSize: bounds.maxHeaderBytes,
      headersTimeout: bounds.headersTimeoutMs,
      requestTimeout: bounds.requestTimeoutMs,
      keepAliveTimeout: bounds.keepAliveTimeoutMs,
      connectionsCheckingInterval: bounds.checkIntervalMs,
    },
    handler,
  );
  server.maxConnections = bounds.maxConnections;
  server.on('clientError', answerClientError(bounds));
  return server;
}
