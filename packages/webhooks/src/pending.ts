/**
 * Which endpoints of a workspace have something to send now (docs/webhooks.md "Fair delivery": an
 * idle endpoint takes no slot). Cheap: no audit entry is read, only the log's newest id against each
 * endpoint's cursor, in two round trips whatever the workspace holds.
 */
import { K, type Redis } from '@svc/accounts';
import { WK } from './keys.ts';
import type { WebhookEndpoint, WebhookStore } from './store.ts';

/**
 * The enabled endpoints of `ws` with work, in id order: a test event waiting (sent whatever the
 * backoff: docs/webhooks.md "Send a test event"), or audit entries after the cursor while neither
 * backing off nor failing. `skip`: ids not to look at (running, or had their turn this pass).
 */
export async function endpointsWithWork(
  redis: Redis,
  store: WebhookStore,
  ws: string,
  now: number,
  skip: (id: string) => boolean,
): Promise<WebhookEndpoint[]> {
  const [all, newest] = await Promise.all([store.endpoints(ws), redis.xrevrange(K.auditLog(ws), '+', '-', 'COUNT', 1)]);
  const last = newest[0]?.[0] ?? null;
  const endpoints = all.filter((e) => e.enabled && !skip(e.id)).sort((a, b) => (a.id < b.id ? -1 : 1));
  const states = await Promise.all(endpoints.map((e) => redis.hmget(WK.state(ws, e.id), 'cursor', 'nextAt', 'failing', 'test')));
  return endpoints.filter((_, i) => {
    const [cursor, nextAt, failing, test] = states[i]!;
    if (test === '1') return true;
    if (failing === '1' || Number(nextAt ?? 0) > now) return false;
    return last !== null && streamIdAfter(last, cursor ?? '0-0');
  });
}

/** True when stream id `a` (`<ms>-<seq>`) comes after `b`. */
function streamIdAfter(a: string, b: string): boolean {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am > bm || (am === bm && as > bs);
}
