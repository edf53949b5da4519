/** A workspace's projects, usage and audit log (docs/management.md, docs/audit.md): the owner's. */
import { READ } from './policy.ts';
import { AUDIT_ACTIONS, AUDIT_ACTOR_MAX, AUDIT_FILTER_SCAN, AUDIT_MAX_PAGE, AUDIT_PAGE } from '@svc/accounts/audit-actions.ts';
import { USAGE_HISTORY_DAYS } from '@svc/accounts/keys.ts';
import { defineOperation, segment } from './define.ts';

const WORKSPACE = { type: 'object', properties: { workspace: segment('Workspace slug.') }, required: ['workspace'] } as const;
const COUNT = { type: 'integer', minimum: 0 } as const;

export const createProject = defineOperation({
  method: 'POST',
  path: '/api/v1/workspaces/{workspace}/projects',
  summary: 'create a project',
  policy: { caller: 'owner', stepUp: 'never', confirmed: false, audit: ['project.created'], bucket: 'management' },
  statuses: [201],
  params: WORKSPACE,
  body: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
  answer: { type: 'object', properties: { slug: { type: 'string' } }, required: ['slug'], additionalProperties: false },
});

export const usage = defineOperation({
  method: 'GET',
  path: '/api/v1/workspaces/{workspace}/usage',
  summary: 'usage',
  policy: READ('owner'),
  statuses: [200],
  params: WORKSPACE,
  // Checked by parseUsageDays (docs/dashboard.md "Usage"), which names the parameter it refuses.
  query: {
    type: 'object',
    properties: {
      days: {
        type: 'integer',
        minimum: 1,
        maximum: USAGE_HISTORY_DAYS,
        default: USAGE_HISTORY_DAYS,
        description: 'Days of history in `daily`, today included (UTC days).',
      },
    },
  },
  answer: {
    type: 'object',
    properties: {
      minute: {
        type: 'object',
        properties: { used: COUNT, limit: COUNT },
        required: ['used', 'limit'],
        additionalProperties: false,
      },
      month: {
        type: 'object',
        properties: { used: COUNT, quota: { type: ['integer', 'null'], description: 'null: no monthly quota.' } },
        required: ['used', 'quota'],
        additionalProperties: false,
      },
      perKey: {
        type: 'array',
        description: "This month's admitted requests per credential, most used first.",
        items: {
          type: 'object',
          properties: { name: { type: 'string' }, prefix: { type: 'string' }, project: { type: 'string' }, count: COUNT },
          required: ['name', 'prefix', 'project', 'count'],
          additionalProperties: false,
        },
      },
      perTool: {
        type: 'array',
        items: {
          type: 'object',
          properties: { tool: { type: 'string' }, count: COUNT },
          required: ['tool', 'count'],
          additionalProperties: false,
        },
      },
      daily: {
        type: 'object',
        description: 'Admitted requests per UTC day, oldest first (today last): in all, per credential and per tool.',
        properties: {
          days: { type: 'array', items: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'YYYY-MM-DD (UTC).' } },
          requests: { type: 'array', items: COUNT },
          perKey: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                name: { type: 'string' },
                prefix: { type: 'string' },
                project: { type: 'string' },
                counts: { type: 'array', items: COUNT },
              },
              required: ['name', 'prefix', 'project', 'counts'],
              additionalProperties: false,
            },
          },
          perTool: {
            type: 'array',
            items: {
              type: 'object',
              properties: { tool: { type: 'string' }, counts: { type: 'array', items: COUNT } },
              required: ['tool', 'counts'],
              additionalProperties: false,
            },
          },
        },
        required: ['days', 'requests', 'perKey', 'perTool'],
        additionalProperties: false,
      },
    },
    required: ['minute', 'month', 'perKey', 'perTool', 'daily'],
    additionalProperties: false,
  },
});

export const audit = defineOperation({
  method: 'GET',
  path: '/api/v1/workspaces/{workspace}/audit',
  summary: 'the audit log',
  policy: READ('owner'),
  statuses: [200],
  params: WORKSPACE,
  // Checked by parseAuditQuery (docs/audit.md "Reading"), which names the parameter it refuses.
  query: {
    type: 'object',
    properties: {
      cursor: { type: 'string', pattern: '^[0-9]+-[0-9]+$', description: 'The `next` of the previous page: a stream id.' },
      action: { type: 'string', enum: AUDIT_ACTIONS, description: 'Only entries of this action.' },
      actor: {
        type: 'string',
        minLength: 1,
        maxLength: AUDIT_ACTOR_MAX,
        description: `Only entries of this person or credential (the actor, matched whole, case aside). Filtered by actor, from or to, a page reads at most ${AUDIT_FILTER_SCAN} entries: it may hold fewer than the limit, even none, and still have a next.`,
      },
      from: {
        type: 'string',
        description: 'Only entries at or after this: a date (YYYY-MM-DD, from 00:00 UTC) or an RFC 3339 time.',
      },
      to: {
        type: 'string',
        description: 'Only entries at or before this: a date (YYYY-MM-DD, to the end of the day UTC) or an RFC 3339 time.',
      },
      limit: { type: 'integer', minimum: 1, maximum: AUDIT_MAX_PAGE, default: AUDIT_PAGE, description: 'Entries per page.' },
      format: {
        type: 'string',
        enum: ['json', 'jsonl'],
        default: 'json',
        description:
          'jsonl: every kept entry the filters (action, actor, from, to) let through, as JSON lines (application/x-ndjson), streamed, the last line {"complete":true,"entries":n}.',
      },
    },
  },
  streams: 'format=jsonl: every kept entry, one JSON object a line; the last line {"complete":true,"entries":n}.',
  answer: {
    type: 'object',
    properties: {
      entries: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            at: { type: 'string', format: 'date-time' },
            actor: { type: 'string' },
            action: { type: 'string' },
            target: { type: 'string' },
            source: { type: 'string' },
            requestId: { type: 'string' },
            principal: {
              type: 'object',
              description: 'Who acted (docs/audit.md "Who and through what"): type, id and label.',
              properties: { type: { type: 'string' }, id: { type: 'string' }, label: { type: 'string' } },
              required: ['type', 'id', 'label'],
              additionalProperties: false,
            },
            agent: {
              type: 'object',
              description: "Through what: the OAuth client or the API key, svc's pages, svc-admin or svc itself.",
              properties: {
                type: { type: 'string' },
                id: { type: 'string' },
                name: { type: 'string' },
                verified: { type: 'boolean' },
                key: { type: ['string', 'null'] },
              },
              required: ['type', 'id', 'name', 'verified', 'key'],
              additionalProperties: false,
            },
            chain: {
              type: 'array',
              description: "A delegated token's acting clients, the current one first (RFC 8693 §4.1 act).",
              items: {
                type: 'object',
                properties: { sub: { type: 'string' }, iss: { type: 'string' }, client_id: { type: 'string' } },
                required: ['sub'],
                additionalProperties: false,
              },
            },
          },
          required: ['id', 'at', 'actor', 'action', 'target', 'source', 'requestId', 'principal', 'agent', 'chain'],
          additionalProperties: false,
        },
      },
      next: { type: ['string', 'null'], description: 'The cursor of the next (older) page; null on the last.' },
    },
    required: ['entries', 'next'],
    additionalProperties: false,
  },
});
