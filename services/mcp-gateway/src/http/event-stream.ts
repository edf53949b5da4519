/**
 * An answer sent as an event stream (MCP 2025-11-25 "Transports", "Sending Messages to the Server":
 * the server may answer a POST with `Content-Type: text/event-stream`, its messages as events and
 * the JSON-RPC response last, then close the stream). Each message is one `message` event whose one
 * `data` line is its JSON text (HTML "Server-sent events"; JSON text holds no line break).
 */
import type { ServerResponse } from 'node:http';
import type { Headers } from './respond.ts';

export class EventStream {
  private readonly res: ServerResponse;

  /** Opens the stream: the status and `headers`, with the event stream's own. */
  constructor(res: ServerResponse, headers: Headers) {
    this.res = res;
    res.writeHead(200, { ...headers, 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' });
  }

  /** One message (its JSON text); nothing once the stream ended or its client went away. */
  send(json: string): void {
    if (!this.res.writableEnded && !this.res.destroyed) this.res.write(`event: message\ndata: ${json}\n\n`);
  }

  /** The last message, and the end of the stream. */
  end(json: string): void {
    if (this.res.writableEnded || this.res.destroyed) return;
    this.res.end(`event: message\ndata: ${json}\n\n`);
  }
}
