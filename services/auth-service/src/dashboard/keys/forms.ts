/**
 * Project > API Keys forms (docs/dashboard.md "Forms"): the contract's key bodies, the rate limit
 * field named `rateLimit` on the page (the contract's `rate_limit` schema).
 */
import { MANAGEMENT_OPERATIONS } from '@svc/management/contract';
import { CONFIRM_FIELDS, defineForm, NO_FIELDS } from '../form.ts';

const { createKey, setKeyLimit, rollKey } = MANAGEMENT_OPERATIONS;
const { rate_limit: rateLimit, ...created } = createKey.body.properties;

export const KEY_FORMS = {
  create: defineForm('createKey', '/projects/:slug/keys', {
    type: 'object',
    properties: { ...created, rateLimit },
    required: createKey.body.required,
  }),
  revoke: defineForm('revokeKey', '/projects/:slug/keys/:id/revoke', NO_FIELDS),
  limit: defineForm('setKeyLimit', '/projects/:slug/keys/:id/limit', {
    type: 'object',
    properties: { rateLimit: setKeyLimit.body.properties.rate_limit },
    required: ['rateLimit'],
  }),
  roll: defineForm('rollKey', '/projects/:slug/keys/:id/roll', rollKey.body),
  disable: defineForm('disableKey', '/projects/:slug/keys/:id/disable', CONFIRM_FIELDS),
  enable: defineForm('enableKey', '/projects/:slug/keys/:id/enable', CONFIRM_FIELDS),
  // The page's text fields: their content is the store's to judge (MAX_KEY_NOTE, MAX_ALLOWED_IPS), shown at the field.
  note: defineForm('setKeyNote', '/projects/:slug/keys/:id/note', {
    type: 'object',
    properties: { note: { type: 'string' } },
    required: ['note'],
  }),
  ips: defineForm('setKeyAllowedIps', '/projects/:slug/keys/:id/ips', {
    type: 'object',
    properties: { allowedIps: { type: 'string' } },
    required: ['allowedIps'],
  }),
} as const;
