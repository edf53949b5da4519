/**
 * The events an endpoint may subscribe to (docs/webhooks.md "Events"): each comes from at least one
 * audit action, so none can be chosen and never sent; and no audit action outside the table is sent.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AUDIT_ACTIONS } from '@svc/accounts';
import { eventOf, SUBSCRIBABLE_EVENT_TYPES, WEBHOOK_EVENT_TYPES } from '../src/events.ts';

test('every subscribable event comes from an audit action; every action maps to a known event or none', () => {
  const sent = new Set(AUDIT_ACTIONS.map(eventOf).filter((e) => e !== null));
  for (const event of SUBSCRIBABLE_EVENT_TYPES) assert.ok(sent.has(event), `${event} has an audit action`);
  for (const event of sent) assert.ok((WEBHOOK_EVENT_TYPES as readonly string[]).includes(event), event);
  assert.ok(!(SUBSCRIBABLE_EVENT_TYPES as readonly string[]).includes('webhook.test'));
  for (const action of ['member.invited', 'service_account.revoked', 'key.reported', 'access_request.denied'] as const)
    assert.notEqual(eventOf(action), null, action);
  assert.equal(eventOf('signin.failed'), null, 'sign-ins are not webhook events');
});
