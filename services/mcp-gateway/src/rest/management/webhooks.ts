/** The routes of a workspace's webhook endpoints (docs/webhooks.md). */
import type { WebhookRow } from '@svc/management';
import { handle, iso, type ManagementRoute } from './handle.ts';

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

export const WEBHOOK_ROUTES: readonly ManagementRoute[] = [
  handle('listWebhooks', async (m, a, { params }) => ({ body: { webhooks: (await m.listWebhooks(a, params.workspace)).map(answer) } })),
  handle('createWebhook', async (m, a, { params, body }) => {
    const made = await m.createWebhook(a, params.workspace, { url: body.url, events: body.events, description: body.description });
    return { status: 201, body: { ...answer(made), secret: made.secret } };
  }),
  handle('updateWebhook', async (m, a, { params, body }) => ({
    body: answer(await m.updateWebhook(a, params.workspace, params.id, body)),
  })),
  handle('deleteWebhook', async (m, a, { params }) => {
    await m.deleteWebhook(a, params.workspace, params.id);
    return { body: { id: params.id, removed: true } };
  }),
  handle('rotateWebhookSecret', async (m, a, { params }) => {
    const r = await m.rotateWebhookSecret(a, params.workspace, params.id);
    return { body: { id: params.id, secret: r.secret, previous_until: iso(r.previousUntil) } };
  }),
  handle('listWebhookDeliveries', async (m, a, { params }) => ({
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
  })),
  handle('testWebhook', async (m, a, { params }) => {
    await m.testWebhook(a, params.workspace, params.id);
    return { status: 202, body: { id: params.id, queued: true } };
  }),
];
