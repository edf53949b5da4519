/**
 * Workspace > Webhooks routes (docs/dashboard.md, docs/webhooks.md), the workspace owner's: the
 * list and "Add endpoint" (its signing secret revealed once, as a new key is: "A key is shown
 * once"), one endpoint's page with its change, test, rotate (revealed once) and delete (both
 * confirmed first).
 */
import type { Request, Response, Router } from 'express';
import { ManagementError, type Actor, type WebhookRow } from '@svc/management';
import { render } from '../../ui/html.ts';
import { formOf } from '../form.ts';
import { back, confirmed, param, type Kit } from '../kit.ts';
import { confirmPage } from '../parts.ts';
import { checkedEvents, WEBHOOK_FORMS } from './forms.ts';
import { removeEnds, rotateEnds, webhookPage, webhookPath, webhooksPage, webhooksPath, type Sent } from './view.ts';

/** What a webhook's reveal holds: its secret, the endpoint's URL and the workspace it is in. */
interface Revealed {
  workspace: string;
  secret: { url: string; secret: string; previousUntil?: number };
}

export function webhooksRoutes(router: Router, { deps, page$, frame, submit, reveals }: Kit): void {
  const m = deps.management;

  async function list(req: Request, res: Response, actor: Actor, shown: { secret?: Revealed['secret']; gone?: true; sent?: Sent } = {}) {
    const ws = param(req, 'ws');
    const endpoints = await m.listWebhooks(actor, ws);
    // At most WEBHOOK_MAX_ENDPOINTS (10) endpoints, each log read for its newest attempt.
    const rows = await Promise.all(
      endpoints.map(async (w) => ({ ...w, last: (await m.listWebhookDeliveries(actor, ws, w.id))[0] ?? null })),
    );
    const f = await frame(req, res, actor, 'webhooks', { workspace: ws });
    render(res, webhooksPage(f, { rows, ...shown }));
  }

  async function endpointOf(actor: Actor, ws: string, id: string): Promise<WebhookRow> {
    const found = (await m.listWebhooks(actor, ws)).find((w) => w.id === id);
    if (!found) throw new ManagementError(404, 'This workspace has no such webhook endpoint.');
    return found;
  }

  async function one(req: Request, res: Response, actor: Actor) {
    const [ws, id] = [param(req, 'ws'), param(req, 'id')];
    const endpoint = await endpointOf(actor, ws, id);
    const deliveries = await m.listWebhookDeliveries(actor, ws, id);
    const f = await frame(req, res, actor, 'webhooks', { workspace: ws });
    render(res, webhookPage(f, { endpoint, deliveries }));
  }

  /** Post-redirect-get (docs/dashboard.md "A key is shown once"): the secret waits for one read by this session. */
  async function reveal(req: Request, res: Response, secret: Revealed['secret']): Promise<void> {
    const ws = param(req, 'ws');
    const id = await reveals.put(req, { workspace: ws, secret } satisfies Revealed);
    res.redirect(303, `${webhooksPath(ws)}/reveal/${id}`);
  }

  async function confirmFirst(req: Request, res: Response, actor: Actor, step: 'rotate' | 'delete'): Promise<void> {
    const [ws, id] = [param(req, 'ws'), param(req, 'id')];
    const w = await endpointOf(actor, ws, id);
    const f = await frame(req, res, actor, 'webhooks', { workspace: ws });
    const page =
      step === 'rotate'
        ? { title: 'Rotate webhook secret', ends: rotateEnds(w), button: 'Rotate secret' }
        : { title: 'Delete webhook endpoint', ends: removeEnds(w), button: 'Delete endpoint' };
    render(res, confirmPage(f, { ...page, action: `${webhookPath(ws, id)}/${step}`, cancel: webhookPath(ws, id) }));
  }

  router.get(
    '/workspaces/:ws/webhooks',
    page$((req, res, actor) => list(req, res, actor)),
  );
  router.get(
    '/workspaces/:ws/webhooks/reveal/:id',
    page$(async (req, res, actor) => {
      // Sealed by reveal() above and authenticated (AES-GCM), so its shape is the one written there.
      const taken = (await reveals.take(req, param(req, 'id'))) as Revealed | null;
      await list(req, res, actor, taken?.workspace === param(req, 'ws') ? { secret: taken.secret } : { gone: true });
    }),
  );
  router.post(
    WEBHOOK_FORMS.create.path,
    page$(async (req, res, actor) => {
      const ws = param(req, 'ws');
      const form = formOf(req, WEBHOOK_FORMS.create);
      const input = { url: form.url.trim(), events: checkedEvents(form.events), description: form.description.trim() };
      await submit(
        req,
        res,
        actor,
        { section: 'webhooks', at: { workspace: ws } },
        async () => {
          const made = await m.createWebhook(actor, ws, input);
          await reveal(req, res, { url: made.url, secret: made.secret });
        },
        async (f, err) => {
          const endpoints = await m.listWebhooks(actor, ws);
          const sent = { ...input, error: { message: err.message, field: err.field } };
          return webhooksPage(f, { rows: endpoints.map((w) => ({ ...w, last: null })), sent });
        },
      );
    }),
  );
  router.get(
    '/workspaces/:ws/webhooks/:id',
    page$((req, res, actor) => one(req, res, actor)),
  );
  router.post(
    WEBHOOK_FORMS.edit.path,
    page$(async (req, res, actor) => {
      const [ws, id] = [param(req, 'ws'), param(req, 'id')];
      const form = formOf(req, WEBHOOK_FORMS.edit);
      const change = {
        url: form.url.trim(),
        events: checkedEvents(form.events),
        description: form.description.trim(),
        enabled: form.enabled === 'on',
      };
      await submit(
        req,
        res,
        actor,
        { section: 'webhooks', at: { workspace: ws } },
        async () => {
          await m.updateWebhook(actor, ws, id, change);
          back(res, webhookPath(ws, id), 'webhook-saved');
        },
        async (f, err) => {
          const [endpoint, deliveries] = [await endpointOf(actor, ws, id), await m.listWebhookDeliveries(actor, ws, id)];
          return webhookPage(f, { endpoint, deliveries, sent: { ...change, error: { message: err.message, field: err.field } } });
        },
      );
    }),
  );
  router.post(
    WEBHOOK_FORMS.test.path,
    page$(async (req, res, actor) => {
      const [ws, id] = [param(req, 'ws'), param(req, 'id')];
      formOf(req, WEBHOOK_FORMS.test);
      await m.testWebhook(actor, ws, id);
      back(res, webhookPath(ws, id), 'webhook-test-queued');
    }),
  );
  for (const step of ['rotate', 'delete'] as const) {
    router.get(
      `/workspaces/:ws/webhooks/:id/${step}`,
      page$((req, res, actor) => confirmFirst(req, res, actor, step)),
    );
  }
  router.post(
    WEBHOOK_FORMS.rotate.path,
    page$(async (req, res, actor) => {
      if (!confirmed(req, WEBHOOK_FORMS.rotate)) return confirmFirst(req, res, actor, 'rotate');
      const [ws, id] = [param(req, 'ws'), param(req, 'id')];
      const w = await endpointOf(actor, ws, id);
      const rotated = await m.rotateWebhookSecret(actor, ws, id);
      await reveal(req, res, { url: w.url, secret: rotated.secret, previousUntil: rotated.previousUntil });
    }),
  );
  router.post(
    WEBHOOK_FORMS.remove.path,
    page$(async (req, res, actor) => {
      if (!confirmed(req, WEBHOOK_FORMS.remove)) return confirmFirst(req, res, actor, 'delete');
      await m.deleteWebhook(actor, param(req, 'ws'), param(req, 'id'));
      back(res, webhooksPath(param(req, 'ws')), 'webhook-removed');
    }),
  );
}
