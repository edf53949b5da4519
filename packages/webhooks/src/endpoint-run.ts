/**
 * One endpoint's run (docs/webhooks.md "Delivery"): a test event first if one waits, whatever the
 * backoff; then, unless the endpoint is backing off or failing, the audit entries after its cursor,
 * oldest first, one at a time (the next waits while one is retried: in order per endpoint), until
 * the run's deadline, a failure or the end. Each answer is judged by verdictOf: a 2xx moves the
 * cursor, 410 Gone disables the endpoint, anything else is retried after the backoff. The cursor
 * moves only after a 2xx, so a crash between the send and the move sends the event again (at least
 * once; `webhook-id` is the same each time, for the receiver to drop repeats).
 */
import { randomUUID } from 'node:crypto';
import { auditEntryOf, K, type AuditLog, type Redis } from '@svc/accounts';
import {
  WEBHOOK_ENDPOINT_RUN_MS,
  WEBHOOK_LOG_ERROR_MAX,
  WEBHOOK_READ_BATCH,
  WEBHOOK_RETRY_DELAYS_MS,
  WEBHOOK_RETRY_WINDOW_MS,
} from './bounds.ts';
import { eventOf } from './events.ts';
import { signedHeaders } from './signing.ts';
import type { WebhookEndpoint, WebhookStore } from './store.ts';
import { verdictOf, type Verdict } from './verdict.ts';

/**
 * The outbound POST (the auth-service gives its guarded fetch: docs/webhooks.md "Outbound
 * protections"); `tenant` is the workspace whose share of the outgoing pools it uses.
 */
export type WebhookSend = (
  url: string,
  init: { headers: Record<string, string>; body: string; tenant?: string },
) => Promise<{ status: number }>;

export interface RunDeps {
  redis: Redis;
  store: WebhookStore;
  send: WebhookSend;
  /** Where an endpoint's disabling is recorded (`webhook.disabled`). */
  audit: Pick<AuditLog, 'record'>;
  now: () => number;
  /** False once the lease may have run out: then nothing is sent and no cursor moves. */
  holding: () => boolean;
}

type StreamEntry = [string, string[]];

/** What the owner reads in the delivery log when a 410 disabled the endpoint. */
const GONE_ERROR = 'the receiver answered 410 Gone: the endpoint is disabled until its owner enables it';

/** Makes the run of one endpoint; its deadline is set when it is called, before its first await. */
export function endpointRun(deps: RunDeps): (ws: string, ep: WebhookEndpoint) => Promise<void> {
  const { store, now, holding } = deps;

  return async function run(ws, ep) {
    const runEnds = now() + WEBHOOK_ENDPOINT_RUN_MS;
    const state = await store.state(ws, ep.id);
    if (!holding()) return;
    if (state.testPending) {
      // The owner's own request goes out now, whatever the backoff; it moves no cursor and no retry
      // (docs/webhooks.md "Send a test event"). Cleared first: at most once, never twice.
      await store.setState(ws, ep.id, { test: 0 });
      const verdict = await attempt(ws, ep, `msg_test_${randomUUID()}`, 'webhook.test', { workspace: ws, test: true }, 1);
      if (verdict === 'gone') await gone(ws, ep);
      if (verdict !== 'delivered') return;
    }
    if (state.failing || state.nextAt > now()) return;
    const entries = (await deps.redis.xrange(K.auditLog(ws), `(${state.cursor}`, '+', 'COUNT', WEBHOOK_READ_BATCH)) as StreamEntry[];
    let cursor = state.cursor;
    let attempts = state.attempts;
    let sent = 0;
    for (const [id, fields] of entries) {
      // A run sends at least one event, so its deadline never starves the endpoint.
      if (!holding() || (sent > 0 && now() > runEnds)) break;
      const f = fieldsOf(fields);
      const type = eventOf(f['action'] ?? '');
      if (type && ep.events.includes(type)) {
        const verdict = await attempt(ws, ep, `msg_${id}_${ws}`, type, dataOf(ws, id, f), attempts + 1);
        sent++;
        if (verdict === 'gone') {
          // The cursor stays before this event: enabled again, the endpoint resumes at it.
          await gone(ws, ep);
          break;
        }
        if (verdict === 'retry') {
          const failedAt = state.firstFailureAt || now();
          const delay = WEBHOOK_RETRY_DELAYS_MS[Math.min(attempts, WEBHOOK_RETRY_DELAYS_MS.length - 1)]!;
          const failing = now() + delay - failedAt > WEBHOOK_RETRY_WINDOW_MS;
          if (!holding()) return;
          await store.setState(ws, ep.id, {
            cursor,
            attempts: attempts + 1,
            firstFailureAt: failedAt,
            nextAt: now() + delay,
            failing: failing ? 1 : 0,
          });
          return;
        }
        attempts = 0;
        state.firstFailureAt = 0;
      }
      if (!holding()) return;
      cursor = id;
      if (type) await store.setState(ws, ep.id, { cursor, attempts: 0, firstFailureAt: 0, nextAt: 0, lastError: '' });
    }
    if (cursor !== state.cursor && holding()) await store.setState(ws, ep.id, { cursor });
  };

  /** One POST, logged, and its verdict. */
  async function attempt(ws: string, ep: WebhookEndpoint, messageId: string, type: string, data: object, n: number): Promise<Verdict> {
    const at = now();
    const body = JSON.stringify({ type, timestamp: new Date(at).toISOString(), data });
    const headers = signedHeaders(await store.signingSecrets(ws, ep.id), messageId, Math.floor(at / 1000), body);
    const t0 = performance.now();
    let status: number | null = null;
    let error: string | null = null;
    try {
      status = (await deps.send(ep.url, { headers, body, tenant: ws })).status;
    } catch (err) {
      error = (err instanceof Error ? err.message : String(err)).slice(0, WEBHOOK_LOG_ERROR_MAX);
    }
    const verdict = verdictOf(status);
    if (verdict === 'gone') error = GONE_ERROR;
    else if (verdict === 'retry' && status !== null) error = `the receiver answered ${status}`;
    const durationMs = Math.round(performance.now() - t0);
    await store.log(ws, ep.id, { at, messageId, type, attempt: n, status, durationMs, error });
    if (error) await store.setState(ws, ep.id, { lastError: error });
    return verdict;
  }

  /** A 410: the endpoint is disabled at once, and that is audited (so a `webhook.disabled` event) once. */
  async function gone(ws: string, ep: WebhookEndpoint): Promise<void> {
    const was = await store.disableGone(ws, ep.id, ep.url);
    if (!was) return;
    await deps.audit.record({
      workspace: ws,
      actor: 'svc',
      action: 'webhook.disabled',
      // Only the URL's origin, as every webhook entry (docs/webhooks.md "Audit"): a path may carry a token.
      target: `webhook:${was.id} (${new URL(was.url).origin})`,
      source: 'webhook worker',
      requestId: '',
      detail: { status: '410' },
    });
  }
}

function fieldsOf(flat: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]!] = flat[i + 1]!;
  return out;
}

/**
 * The event's `data`: the audit entry without its source address (docs/webhooks.md "Payload"),
 * with who acted through what as the log names them (principal, agent, chain: docs/audit.md "Who
 * and through what").
 */
function dataOf(ws: string, id: string, f: Record<string, string>): object {
  let detail: unknown = {};
  try {
    detail = JSON.parse(f['detail'] ?? '{}');
  } catch {
    // An entry's detail is always JSON (AuditLog.record); an unreadable one is sent empty.
  }
  const { principal, agent, chain } = auditEntryOf(ws, id, Object.entries(f).flat());
  return {
    workspace: ws,
    auditId: id,
    action: f['action'],
    actor: f['actor'],
    principal,
    agent,
    chain,
    target: f['target'],
    at: new Date(Number(f['at'] ?? 0)).toISOString(),
    detail,
  };
}
