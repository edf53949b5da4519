/**
 * Workspace > Webhooks forms (docs/dashboard.md "Forms"): the contract's endpoint fields
 * (packages/management/src/contract/webhooks.ts), except that the event types come as checkboxes:
 * one checked box is one text, several are several, so `events` is either; confirmations.
 */
import { MANAGEMENT_OPERATIONS } from '@svc/management/contract';
import { CONFIRM_FIELDS, defineForm, NO_FIELDS } from '../form.ts';

const CREATE = MANAGEMENT_OPERATIONS.createWebhook.body.properties;
const ONE_EVENT = CREATE.events.items;
/** The checked event types: one (a text) or several (a repeated field); none is the operation's 400. */
const EVENTS = { anyOf: [ONE_EVENT, CREATE.events] } as const;
const FIELDS = { url: CREATE.url, events: EVENTS, description: { ...CREATE.description, default: '' } } as const;

export const WEBHOOK_FORMS = {
  create: defineForm('createWebhook', '/workspaces/:ws/webhooks', { type: 'object', properties: FIELDS, required: ['url'] }),
  // The "Enabled" checkbox: sent as `on` when checked, absent when not.
  edit: defineForm('updateWebhook', '/workspaces/:ws/webhooks/:id', {
    type: 'object',
    properties: { ...FIELDS, enabled: { type: 'string', enum: ['on'] } },
    required: ['url'],
  }),
  test: defineForm('testWebhook', '/workspaces/:ws/webhooks/:id/test', NO_FIELDS),
  rotate: defineForm('rotateWebhookSecret', '/workspaces/:ws/webhooks/:id/rotate', CONFIRM_FIELDS),
  remove: defineForm('deleteWebhook', '/workspaces/:ws/webhooks/:id/delete', CONFIRM_FIELDS),
} as const;

/** The checked event types as a list (none checked: an empty one, which the operation refuses naming `events`). */
export const checkedEvents = <T extends string>(events: T | T[] | undefined): T[] =>
  events === undefined ? [] : ([] as T[]).concat(events);
