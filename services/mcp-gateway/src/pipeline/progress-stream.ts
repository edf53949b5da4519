/**
 * A tools/call whose caller asked for progress (MCP 2025-11-25 "Progress": `params._meta.progressToken`)
 * and takes an event stream (its Accept names `text/event-stream`) is answered as one (MCP 2025-11-25
 * "Transports": notifications related to the request, then its response) as soon as the tool
 * reports progress: each update goes to the caller as notifications/progress with the caller's own
 * token, and the response (or the error) is the stream's last event (run.ts). A call that reports
 * none is answered with JSON, as every other. Built-in tools report none; an upstream's
 * notifications/progress are relayed (docs/upstream-servers.md "Progress"), as many as the
 * upstream may send before its answer (UPSTREAM_LIMITS: its events, bytes and time bound them).
 */
import type { ProgressSink } from '../tools/types.ts';
import type { Exchange } from './exchange.ts';
import { respondEvents } from './run.ts';

const TAKES_EVENTS = /(^|,)\s*text\/event-stream\s*(;|,|$)/i;

/** The caller's progressToken on a tools/call that may be answered as a stream, or undefined. */
function progressTokenOf(ex: Exchange): string | number | undefined {
  const rpc = ex.rpc;
  if (rpc?.method !== 'tools/call') return undefined;
  const meta = rpc.params?.['_meta'];
  const token = meta !== null && typeof meta === 'object' ? (meta as Record<string, unknown>)['progressToken'] : undefined;
  if (typeof token !== 'string' && typeof token !== 'number') return undefined;
  const accept = ex.req.headers.accept;
  return accept !== undefined && TAKES_EVENTS.test(accept) ? token : undefined;
}

/** Where the call's progress goes (ToolCaller.progress), or null when the caller did not ask for it. */
export function progressRelay(ex: Exchange): ProgressSink | null {
  const token = progressTokenOf(ex);
  if (token === undefined) return null;
  let last = -Infinity;
  return (update) => {
    // MCP 2025-11-25 "Progress": the progress value MUST increase with each notification.
    if (!(update.progress > last) || ex.res.writableEnded) return;
    last = update.progress;
    const params: Record<string, unknown> = { progressToken: token, progress: update.progress };
    if (update.total !== undefined) params['total'] = update.total;
    if (update.message !== undefined) params['message'] = update.message;
    ex.events ??= respondEvents(ex);
    ex.events.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params }));
  };
}
