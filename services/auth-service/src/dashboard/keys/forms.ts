/**
 * Project > API Keys forms (docs/dashboard.md "Forms"): the contract's key bodies, the rate limit
 * field named `rateLimit` on the page (the contract's `rate_limit` schema).
 */
import { MANAGEMENT_OPERATIONS } from '@svc/management/contract';
import { defineForm, NO_FIELDS } from '../form.ts';

const { createKey, setKeyLimit, rollKey } = MANAGEMENT_OPERATIONS;
const { rate_limit: rateLimit, ...created } = createKey.body.properties;

export const KEY_FORMS = {
  create: defineForm('/projects/:slug/keys', {
    type: 'object',
    properties: { ...created, rateLimit },
    required: createKey.body.required,
  }),
  revoke: defineForm('/projects/:slug/keys/:id/revoke', NO_FIELDS),
  limit: defineForm('/projects/:slug/keys/:id/limit', {
    type: 'object',
    properties: { rateLimit: setKeyLimit.body.properties.rate_limit },
    required: ['rateLimit'],
  }),
  roll: defineForm('/projects/:slug/keys/:id/roll', rollKey.body),
} as const;
