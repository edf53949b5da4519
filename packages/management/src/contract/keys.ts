/**
 * A project's keys (docs/management.md "Operations"): list, create, limit, disable and enable, note,
 * IP allow-list, revoke, roll.
 */
import { READ } from './policy.ts';
import { MAX_ALLOWED_IPS, MAX_KEY_NOTE } from '@svc/accounts/key-controls.ts';
import { KEY_STATUSES } from '@svc/accounts/key-status.ts';
import { KEY_DEFAULTS, LEVELS, MAX_KEY_SEARCH } from './defaults.ts';
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
const STATUS = { type: 'string', enum: KEY_STATUSES } as const;
const NOTE = {
  type: 'string',
  maxLength: MAX_KEY_NOTE,
  description: `A note about the key, at most ${MAX_KEY_NOTE} characters; empty: none.`,
} as const;
const ALLOWED_IPS = {
  type: 'array',
  items: { type: 'string' },
  maxItems: MAX_ALLOWED_IPS,
  description: `Addresses or CIDR blocks (IPv4 or IPv6) the key may be used from, at most ${MAX_ALLOWED_IPS}; empty: anywhere.`,
} as const;
/** A key's status change (disable, enable). */
const KEY_STATUS_ANSWER = {
  type: 'object',
  properties: { id: { type: 'string' }, status: STATUS },
  required: ['id', 'status'],
  additionalProperties: false,
} as const;

export const listKeys = defineOperation({
  method: 'GET',
  path: '/api/v1/projects/{project}/keys',
  summary: 'list keys',
  policy: READ('member'),
  statuses: [200],
  params: PROJECT,
  // Checked by the management layer (keyFilterOf), which names the parameter it refuses.
  query: {
    type: 'object',
    properties: {
      status: {
        type: 'string',
        enum: [...KEY_STATUSES, 'all'],
        description: 'Only keys of this status; all: every key. Left out: every key but revoked ones.',
      },
      q: { type: 'string', maxLength: MAX_KEY_SEARCH, description: 'Only keys whose name, prefix or note holds this text (any case).' },
    },
  },
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
            note: { type: 'string' },
            allowed_ips: { type: 'array', items: { type: 'string' } },
            replaced_by: {
              type: ['object', 'null'],
              description: 'The key a roll made in its place (this one works until expires_at).',
              properties: { id: { type: 'string' }, name: { type: 'string' }, prefix: { type: 'string' } },
              required: ['id', 'name', 'prefix'],
              additionalProperties: false,
            },
          },
          required: [
            'id',
            'name',
            'level',
            'prefix',
            'status',
            'created_at',
            'expires_at',
            'last_used_at',
            'rate_limit',
            'note',
            'allowed_ips',
            'replaced_by',
          ],
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
  policy: { caller: 'editor', stepUp: 'always', confirmed: false, audit: ['key.created'], bucket: 'management' },
  statuses: [201],
  params: PROJECT,
  body: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'What the key is for.' },
      level: { ...LEVEL, default: KEY_DEFAULTS.level },
      expires: { type: 'string', default: KEY_DEFAULTS.expires, description: 'A duration such as 90m, 12h, 30d or 4w, or never.' },
      rate_limit: RATE_LIMIT,
      note: NOTE,
      allowed_ips: ALLOWED_IPS,
    },
    required: ['name'],
    additionalProperties: false,
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
  policy: { caller: 'editor', stepUp: 'never', confirmed: false, audit: ['key.limit_changed'], bucket: 'management' },
  statuses: [200],
  params: PROJECT_KEY,
  body: { type: 'object', properties: { rate_limit: RATE_LIMIT }, required: ['rate_limit'], additionalProperties: false },
  answer: {
    type: 'object',
    properties: { id: { type: 'string' }, rate_limit: { type: ['integer', 'null'] } },
    required: ['id', 'rate_limit'],
    additionalProperties: false,
  },
});

export const disableKey = defineOperation({
  method: 'POST',
  path: '/api/v1/projects/{project}/keys/{id}/disable',
  summary: 'disable a key (refused by every gateway until enabled)',
  policy: { caller: 'editor', stepUp: 'never', confirmed: false, audit: ['key.disabled'], bucket: 'management' },
  statuses: [200],
  params: PROJECT_KEY,
  body: { type: 'object', properties: {}, additionalProperties: false },
  answer: KEY_STATUS_ANSWER,
});

export const enableKey = defineOperation({
  method: 'POST',
  path: '/api/v1/projects/{project}/keys/{id}/enable',
  summary: 'enable a disabled key',
  policy: { caller: 'editor', stepUp: 'always', confirmed: false, audit: ['key.enabled'], bucket: 'management' },
  statuses: [200],
  params: PROJECT_KEY,
  body: { type: 'object', properties: {}, additionalProperties: false },
  answer: KEY_STATUS_ANSWER,
});

export const setKeyNote = defineOperation({
  method: 'POST',
  path: '/api/v1/projects/{project}/keys/{id}/note',
  summary: "set a key's note",
  policy: { caller: 'editor', stepUp: 'never', confirmed: false, audit: ['key.note_changed'], bucket: 'management' },
  statuses: [200],
  params: PROJECT_KEY,
  body: { type: 'object', properties: { note: NOTE }, required: ['note'], additionalProperties: false },
  answer: {
    type: 'object',
    properties: { id: { type: 'string' }, note: { type: 'string' } },
    required: ['id', 'note'],
    additionalProperties: false,
  },
});

export const setKeyAllowedIps = defineOperation({
  method: 'POST',
  path: '/api/v1/projects/{project}/keys/{id}/allowed-ips',
  summary: "set a key's IP allow-list",
  policy: { caller: 'editor', stepUp: 'always', confirmed: false, audit: ['key.allowed_ips_changed'], bucket: 'management' },
  statuses: [200],
  params: PROJECT_KEY,
  body: { type: 'object', properties: { allowed_ips: ALLOWED_IPS }, required: ['allowed_ips'], additionalProperties: false },
  answer: {
    type: 'object',
    properties: { id: { type: 'string' }, allowed_ips: { type: 'array', items: { type: 'string' } } },
    required: ['id', 'allowed_ips'],
    additionalProperties: false,
  },
});

export const revokeKey = defineOperation({
  method: 'DELETE',
  path: '/api/v1/projects/{project}/keys/{id}',
  summary: 'revoke a key',
  policy: { caller: 'editor', stepUp: 'never', confirmed: false, audit: ['key.revoked'], bucket: 'management' },
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
  policy: { caller: 'editor', stepUp: 'always', confirmed: false, audit: ['key.rolled'], bucket: 'management' },
  statuses: [201],
  params: PROJECT_KEY,
  body: {
    type: 'object',
    properties: {
      overlap: { type: 'string', default: KEY_DEFAULTS.overlap, description: 'How long the old key keeps working: 0m, 1h, 24h, 7d...' },
    },
    additionalProperties: false,
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
  policy: { caller: 'holder', stepUp: 'never', confirmed: false, audit: ['key.reported'], bucket: 'none' },
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
