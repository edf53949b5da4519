/** A project's keys (docs/management.md "Operations"): list, create, limit, revoke, roll. */
import { KEY_DEFAULTS, LEVELS } from './defaults.ts';
import { defineOperation, segment, WHEN } from './define.ts';

const PROJECT = {
  type: 'object',
  properties: { project: segment('Project slug.') },
  required: ['project'],
} as const;
const PROJECT_KEY = {
  type: 'object',
  properties: { project: segment('Project slug.'), id: segment('Key id (svc keys list).') },
  required: ['project', 'id'],
} as const;

/** A key's own requests per minute: a whole number (or its digits), or null for the plan's limit alone. */
const RATE_LIMIT = {
  type: ['number', 'string', 'null'],
  description: "Requests per minute for this key alone, from 1 to the plan's limit; null or empty: the plan's limit.",
} as const;
const LEVEL = { type: 'string', enum: LEVELS } as const;
const STATUS = { type: 'string', enum: ['active', 'expiring', 'expired', 'revoked'] } as const;

export const listKeys = defineOperation({
  method: 'GET',
  path: '/api/v1/projects/{project}/keys',
  summary: 'list keys',
  statuses: [200],
  params: PROJECT,
  answer: {
    type: 'object',
    properties: {
      keys: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            name: { type: 'string' },
            level: { type: 'string' },
            prefix: { type: 'string', description: 'Safe-to-show start of the key.' },
            status: STATUS,
            created_at: WHEN,
            expires_at: WHEN,
            last_used_at: WHEN,
            rate_limit: { type: ['integer', 'null'] },
          },
          required: ['id', 'name', 'level', 'prefix', 'status', 'created_at', 'expires_at', 'last_used_at', 'rate_limit'],
          additionalProperties: false,
        },
      },
      creatable_levels: { type: 'array', items: LEVEL, description: 'The levels your role may create.' },
    },
    required: ['keys', 'creatable_levels'],
    additionalProperties: false,
  },
});

export const createKey = defineOperation({
  method: 'POST',
  path: '/api/v1/projects/{project}/keys',
  summary: 'create a key',
  statuses: [201],
  params: PROJECT,
  body: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'What the key is for.' },
      level: { ...LEVEL, default: KEY_DEFAULTS.level },
      expires: { type: 'string', default: KEY_DEFAULTS.expires, description: 'A duration such as 90m, 12h, 30d or 4w, or never.' },
      rate_limit: RATE_LIMIT,
    },
    required: ['name'],
  },
  answer: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      key: { type: 'string', description: 'The key itself: shown this once.' },
      name: { type: 'string' },
      level: LEVEL,
      expires_at: WHEN,
      rate_limit: { type: ['integer', 'null'] },
    },
    required: ['id', 'key', 'name', 'level', 'expires_at', 'rate_limit'],
    additionalProperties: false,
  },
});

export const setKeyLimit = defineOperation({
  method: 'PATCH',
  path: '/api/v1/projects/{project}/keys/{id}',
  summary: "set a key's own rate limit",
  statuses: [200],
  params: PROJECT_KEY,
  body: { type: 'object', properties: { rate_limit: RATE_LIMIT }, required: ['rate_limit'] },
  answer: {
    type: 'object',
    properties: { id: { type: 'string' }, rate_limit: { type: ['integer', 'null'] } },
    required: ['id', 'rate_limit'],
    additionalProperties: false,
  },
});

export const revokeKey = defineOperation({
  method: 'DELETE',
  path: '/api/v1/projects/{project}/keys/{id}',
  summary: 'revoke a key',
  statuses: [200],
  params: PROJECT_KEY,
  answer: {
    type: 'object',
    properties: { id: { type: 'string' }, revoked: { const: true } },
    required: ['id', 'revoked'],
    additionalProperties: false,
  },
});

export const rollKey = defineOperation({
  method: 'POST',
  path: '/api/v1/projects/{project}/keys/{id}/roll',
  summary: 'roll a key',
  statuses: [201],
  params: PROJECT_KEY,
  body: {
    type: 'object',
    properties: {
      overlap: { type: 'string', default: KEY_DEFAULTS.overlap, description: 'How long the old key keeps working: 0m, 1h, 24h, 7d...' },
    },
  },
  answer: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      key: { type: 'string', description: 'The new key: shown this once.' },
      name: { type: 'string' },
      level: { type: 'string' },
      expires_at: WHEN,
      old_key_until: WHEN,
    },
    required: ['id', 'key', 'name', 'level', 'expires_at', 'old_key_until'],
    additionalProperties: false,
  },
});

/**
 * A leaked key reported (docs/management.md "REST"): no credential but the key itself, so
 * it is routed apart from the table of operations that authenticate.
 */
export const REPORT_LEAK = defineOperation({
  method: 'POST',
  path: '/api/v1/keys/report-leak',
  summary: 'report a leaked key: it is revoked; the same answer whether or not it existed; no credential needed',
  statuses: [202],
  params: { type: 'object', properties: {} },
  body: { type: 'object', properties: { key: { type: 'string', description: 'The leaked key.' } }, required: ['key'] },
  answer: {
    type: 'object',
    properties: { reported: { const: true }, message: { type: 'string' } },
    required: ['reported', 'message'],
    additionalProperties: false,
  },
});
