/**
 * A workspace's webhook endpoints (docs/webhooks.md): the owner lists, adds, changes, removes and
 * tests them and rotates their secrets; each change is audited. Without a store (WebhookStore,
 * ManagementDeps.webhooks) every operation answers 404.
 */
import type { DeliveryAttempt, DeliveryState, EndpointChange, WebhookEndpoint, WebhookStore } from '@svc/webhooks';
import { WEBHOOK_LOW_PORTS, WEBHOOK_MAX_ENDPOINTS, WEBHOOK_MIN_HIGH_PORT, webhookPortAllowed } from '@svc/webhooks/bounds.ts';
import type { WebhookEventType } from '@svc/webhooks/events.ts';
import { hasHiddenCharacters } from '@svc/accounts';
import type { ManagementContext } from './context.ts';
import type { AnswerOf } from './contract/define.ts';
import type * as contract from './contract/webhooks.ts';
import { ManagementError, type Actor } from './types.ts';

export type WebhookRow = WebhookEndpoint & { state: DeliveryState };

/** A workspace's webhook endpoints (docs/webhooks.md): the owner's. */
export interface WebhookOperations {
  /** The workspace's webhook endpoints with their delivery state (docs/webhooks.md). */
  listWebhooks(actor: Actor, workspace: string): Promise<WebhookRow[]>;
  /** A new endpoint and its secret, shown once. */
  createWebhook(
    actor: Actor,
    workspace: string,
    input: { url: string; events: WebhookEventType[]; description?: string },
  ): Promise<WebhookRow & { secret: string }>;
  updateWebhook(actor: Actor, workspace: string, id: string, change: EndpointChange): Promise<WebhookRow>;
  deleteWebhook(actor: Actor, workspace: string, id: string): Promise<AnswerOf<typeof contract.deleteWebhook>>;
  /** A new secret, shown once; the old one signs beside it until `previousUntil`. */
  rotateWebhookSecret(actor: Actor, workspace: string, id: string): Promise<{ secret: string; previousUntil: number }>;
  listWebhookDeliveries(actor: Actor, workspace: string, id: string): Promise<DeliveryAttempt[]>;
  /** Queues a `webhook.test` event, sent by the worker ahead of the next audit entry. */
  testWebhook(actor: Actor, workspace: string, id: string): Promise<AnswerOf<typeof contract.testWebhook>>;
}

/** The operations of this group, on the shared context (each is described on WebhookOperations). */
export function webhookOperations(ctx: ManagementContext, store: WebhookStore | undefined): WebhookOperations {
  const { note, ownerOf } = ctx;
  // Only the URL's origin is audited: a receiver's path or query may carry a token (docs/webhooks.md "Audit").
  const target = (e: { id: string; url: string }) => `webhook:${e.id} (${new URL(e.url).origin})`;
  const storeFor = async (actor: Parameters<typeof ownerOf>[0], workspace: string, what: string): Promise<WebhookStore> => {
    await ownerOf(actor, workspace, what);
    if (!store) throw new ManagementError(404, 'Webhooks are not offered here.');
    return store;
  };
  const missing = () => new ManagementError(404, 'This workspace has no such webhook endpoint.');

  return {
    async listWebhooks(actor, workspace) {
      return (await storeFor(actor, workspace, 'see webhooks')).list(workspace);
    },

    async createWebhook(actor, workspace, input) {
      const s = await storeFor(actor, workspace, 'add webhooks');
      const made = await s.create(workspace, {
        ...input,
        url: checkedUrl(input.url),
        events: checkedEvents(input.events),
        ...(input.description === undefined ? {} : { description: checkedDescription(input.description) }),
      });
      if (!made) throw new ManagementError(409, `This workspace has ${WEBHOOK_MAX_ENDPOINTS} webhook endpoints, the most it may have.`);
      await note(actor, workspace, 'webhook.created', target(made.endpoint), { events: input.events.join(' ') });
      return { ...made.endpoint, state: await s.state(workspace, made.endpoint.id), secret: made.secret };
    },

    async updateWebhook(actor, workspace, id, change) {
      const s = await storeFor(actor, workspace, 'change webhooks');
      const checked: EndpointChange = {
        ...change,
        ...(change.url === undefined ? {} : { url: checkedUrl(change.url) }),
        ...(change.events === undefined ? {} : { events: checkedEvents(change.events) }),
        ...(change.description === undefined ? {} : { description: checkedDescription(change.description) }),
      };
      const updated = await s.update(workspace, id, checked);
      if (!updated) throw missing();
      await note(actor, workspace, 'webhook.changed', target(updated), { fields: Object.keys(change).sort().join(' ') });
      return { ...updated, state: await s.state(workspace, id) };
    },

    async deleteWebhook(actor, workspace, id) {
      const s = await storeFor(actor, workspace, 'remove webhooks');
      const found = await s.get(workspace, id);
      if (!found || !(await s.remove(workspace, id))) throw missing();
      await note(actor, workspace, 'webhook.removed', target(found));
      return { id, removed: true };
    },

    async rotateWebhookSecret(actor, workspace, id) {
      const s = await storeFor(actor, workspace, 'rotate webhook secrets');
      const found = await s.get(workspace, id);
      const rotated = found ? await s.rotate(workspace, id) : null;
      if (!found || !rotated) throw missing();
      await note(actor, workspace, 'webhook.secret_rotated', target(found), {
        old_secret_until: new Date(rotated.previousUntil).toISOString(),
      });
      return rotated;
    },

    async listWebhookDeliveries(actor, workspace, id) {
      const s = await storeFor(actor, workspace, 'see webhook deliveries');
      if (!(await s.get(workspace, id))) throw missing();
      return s.deliveries(workspace, id);
    },

    async testWebhook(actor, workspace, id) {
      const s = await storeFor(actor, workspace, 'test webhooks');
      if (!(await s.queueTest(workspace, id))) throw missing();
      return { id, queued: true };
    },
  };
}

/** At least one event: an endpoint that wants none is one to delete (or disable). */
function checkedEvents(events: WebhookEventType[]): WebhookEventType[] {
  if (events.length === 0) throw new ManagementError(400, 'Name at least one event type in events.', 'events');
  return events;
}

/**
 * A description is shown on the dashboard, in `svc webhooks` and in the delivery log: like a name
 * (docs/security.md "Unverified clients and hostile input"), it may not hold control, invisible or
 * direction-changing characters.
 */
function checkedDescription(text: string): string {
  if (hasHiddenCharacters(text))
    throw new ManagementError(
      400,
      'The description may not contain control, invisible or direction-changing characters (such as line breaks, escape sequences or zero-width spaces).',
      'description',
    );
  return text;
}

/** The URL as the store keeps it: http(s), a host, no user or password (it would sit in logs). */
function checkedUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ManagementError(400, 'The url is not a URL.', 'url');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ManagementError(400, 'The url must be http or https.', 'url');
  if (url.username || url.password) throw new ManagementError(400, 'The url must not carry a user or password.', 'url');
  if (!webhookPortAllowed(url))
    throw new ManagementError(400, `The url's port must be ${WEBHOOK_LOW_PORTS.join(' or ')} or at least ${WEBHOOK_MIN_HIGH_PORT}.`, 'url');
  return url.href;
}

export type { DeliveryAttempt, WebhookEventType };
