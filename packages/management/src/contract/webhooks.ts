/**
 * A workspace's webhook endpoints (docs/webhooks.md): the owner's. Each endpoint's secret is shown
 * once, at creation and at each rotation.
 */
import { READ } from './policy.ts';
import {
  WEBHOOK_DESCRIPTION_MAX,
  WEBHOOK_LOG_SIZE,
  WEBHOOK_LOW_PORTS,
  WEBHOOK_MAX_ENDPOINTS,
  WEBHOOK_MIN_HIGH_PORT,
  WEBHOOK_URL_MAX,
} from '@svc/webhooks/bounds.ts';
import { SUBSCRIBABLE_EVENT_TYPES } from '@svc/webhooks/events.ts';
import { defineOperation, segment, WHEN } from './define.ts';

const WORKSPACE = { type: 'object', properties: { workspace: segment('Workspace slug.') }, required: ['workspace'] } as const;
const ONE = {
  type: 'object',
  properties: { workspace: segment('Workspace slug.'), id: segment('The endpoint id (svc webhooks list).') },
  required: ['workspace', 'id'],
} as const;
/** The events an endpoint may subscribe to (a test event goes to every endpoint). */
const URL = {
  type: 'string',
  maxLength: WEBHOOK_URL_MAX,
  description: `Where events are POSTed: an http(s) URL of at most ${WEBHOOK_URL_MAX} characters, no user or password, port ${WEBHOOK_LOW_PORTS.join(' or ')} or at least ${WEBHOOK_MIN_HIGH_PORT}.`,
} as const;
const EVENTS = {
  type: 'array',
  maxItems: SUBSCRIBABLE_EVENT_TYPES.length,
  uniqueItems: true,
  items: { type: 'string', enum: SUBSCRIBABLE_EVENT_TYPES },
  description: 'The event types sent to it, at least one (docs/webhooks.md "Events").',
} as const;
const DESCRIPTION = { type: 'string', maxLength: WEBHOOK_DESCRIPTION_MAX } as const;
const ENDPOINT = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    url: { type: 'string' },
    events: { type: 'array', items: { type: 'string' } },
    description: { type: 'string' },
    enabled: { type: 'boolean' },
    failing: { type: 'boolean', description: 'Retried for 24 h without success: nothing is sent until it is enabled again.' },
    last_error: { type: ['string', 'null'] },
    created_at: WHEN,
  },
  required: ['id', 'url', 'events', 'description', 'enabled', 'failing', 'last_error', 'created_at'],
  additionalProperties: false,
} as const;

export const listWebhooks = defineOperation({
  method: 'GET',
  path: '/api/v1/workspaces/{workspace}/webhooks',
  summary: "list the workspace's webhook endpoints",
  policy: READ('owner'),
  statuses: [200],
  params: WORKSPACE,
  answer: {
    type: 'object',
    properties: { webhooks: { type: 'array', items: ENDPOINT } },
    required: ['webhooks'],
    additionalProperties: false,
  },
});

export const createWebhook = defineOperation({
  method: 'POST',
  path: '/api/v1/workspaces/{workspace}/webhooks',
  summary: 'add a webhook endpoint (its signing secret is shown once)',
  policy: { caller: 'owner', stepUp: 'always', confirmed: true, setting: 'webhook', audit: ['webhook.created'], bucket: 'management' },
  statuses: [201],
  params: WORKSPACE,
  body: {
    type: 'object',
    description: `At most ${WEBHOOK_MAX_ENDPOINTS} endpoints per workspace.`,
    properties: { url: URL, events: EVENTS, description: { ...DESCRIPTION, default: '' } },
    required: ['url', 'events'],
    additionalProperties: false,
  },
  answer: {
    type: 'object',
    properties: {
      ...ENDPOINT.properties,
      secret: { type: 'string', description: 'whsec_<base64>: shown once; svc keeps it sealed.' },
    },
    required: [...ENDPOINT.required, 'secret'],
    additionalProperties: false,
  },
});

export const updateWebhook = defineOperation({
  method: 'PATCH',
  path: '/api/v1/workspaces/{workspace}/webhooks/{id}',
  summary: 'change an endpoint; enabling a failing one resumes at the event it stopped on',
  policy: { caller: 'owner', stepUp: 'always', confirmed: true, setting: 'webhook', audit: ['webhook.changed'], bucket: 'management' },
  statuses: [200],
  params: ONE,
  body: {
    type: 'object',
    properties: { url: URL, events: EVENTS, description: DESCRIPTION, enabled: { type: 'boolean' } },
    additionalProperties: false,
  },
  answer: ENDPOINT,
});

export const deleteWebhook = defineOperation({
  method: 'DELETE',
  path: '/api/v1/workspaces/{workspace}/webhooks/{id}',
  summary: 'remove an endpoint and its delivery log',
  policy: { caller: 'owner', stepUp: 'never', confirmed: false, audit: ['webhook.removed'], bucket: 'management' },
  statuses: [200],
  params: ONE,
  answer: {
    type: 'object',
    properties: { id: { type: 'string' }, removed: { const: true } },
    required: ['id', 'removed'],
    additionalProperties: false,
  },
});

export const rotateWebhookSecret = defineOperation({
  method: 'POST',
  path: '/api/v1/workspaces/{workspace}/webhooks/{id}/rotate',
  summary: 'a new signing secret (shown once); the old one signs beside it for 24 h',
  policy: {
    caller: 'owner',
    stepUp: 'always',
    confirmed: true,
    setting: 'webhook',
    audit: ['webhook.secret_rotated'],
    bucket: 'management',
  },
  statuses: [200],
  params: ONE,
  answer: {
    type: 'object',
    properties: { id: { type: 'string' }, secret: { type: 'string' }, previous_until: WHEN },
    required: ['id', 'secret', 'previous_until'],
    additionalProperties: false,
  },
});

export const listWebhookDeliveries = defineOperation({
  method: 'GET',
  path: '/api/v1/workspaces/{workspace}/webhooks/{id}/deliveries',
  summary: `an endpoint's last ${WEBHOOK_LOG_SIZE} delivery attempts, newest first`,
  policy: READ('owner'),
  statuses: [200],
  params: ONE,
  answer: {
    type: 'object',
    properties: {
      deliveries: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            at: WHEN,
            message_id: { type: 'string' },
            type: { type: 'string' },
            attempt: { type: 'integer' },
            status: { type: ['integer', 'null'] },
            duration_ms: { type: 'integer' },
            error: { type: ['string', 'null'] },
          },
          required: ['at', 'message_id', 'type', 'attempt', 'status', 'duration_ms', 'error'],
          additionalProperties: false,
        },
      },
    },
    required: ['deliveries'],
    additionalProperties: false,
  },
});

export const testWebhook = defineOperation({
  method: 'POST',
  path: '/api/v1/workspaces/{workspace}/webhooks/{id}/test',
  summary: 'queue a webhook.test event for the endpoint (its outcome is in the delivery log)',
  policy: { caller: 'owner', stepUp: 'never', confirmed: false, audit: [], bucket: 'management' },
  statuses: [202],
  params: ONE,
  answer: {
    type: 'object',
    properties: { id: { type: 'string' }, queued: { const: true } },
    required: ['id', 'queued'],
    additionalProperties: false,
  },
});
