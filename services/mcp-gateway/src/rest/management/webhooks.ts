/**
 * The wire adapters of a workspace's webhook endpoints (docs/webhooks.md): the endpoints, the new
 * secrets and the delivery log in the wire's names and times. Removing and testing one answer as
 * the layer does.
 */
import type { WebhookRow } from '@svc/management';
import { iso, type WireAdapters } from './wire.ts';

const answer = (w: WebhookRow) => ({
  id: w.id,
  url: w.url,
  events: w.events,
  description: w.description,
  enabled: w.enabled,
  failing: w.state.failing,
  last_error: w.state.lastError || null,
  created_at: iso(w.createdAt),
});

export const WEBHOOK_ADAPTERS = {
  listWebhooks: async (m, a, { params }) => ({ body: { webhooks: (await m.listWebhooks(a, params.workspace)).map(answer) } }),
  createWebhook: async (m, a, { params, body }) => {
    const made = await m.createWebhook(a, params.workspace, { url: body.url, events: body.events, description: body.description });
    return { status: 201, body: { ...answer(made), secret: made.secret } };
  },
  updateWebhook: async (m, a, { params, body }) => ({
    body: answer(await m.updateWebhook(a, params.workspace, params.id, body)),
  }),
  rotateWebhookSecret: async (m, a, { params }) => {
    const r = await m.rotateWebhookSecret(a, params.workspace, params.id);
    return { body: { id: params.id, secret: r.secret, previous_until: iso(r.previousUntil) } };
  },
  listWebhookDeliveries: async (m, a, { params }) => ({
    body: {
      deliveries: (await m.listWebhookDeliveries(a, params.workspace, params.id)).map((d) => ({
        at: iso(d.at),
        message_id: d.messageId,
        type: d.type,
        attempt: d.attempt,
        status: d.status,
        duration_ms: d.durationMs,
        error: d.error,
      })),
    },
  }),
} satisfies WireAdapters;
