/** Access requests (docs/management.md "Access request lifecycle"): a project's, decided by its admins, and your own. */
import { READ } from './policy.ts';
import { KEY_DEFAULTS, LEVELS } from './defaults.ts';
import { defineOperation, NEXT_CURSOR, PAGE_QUERY, segment, WHEN } from './define.ts';

const REQUEST = {
  type: 'object',
  properties: { project: segment('Project slug.'), id: segment('Access request id (svc requests list).') },
  required: ['project', 'id'],
} as const;
const STATUS = { type: 'string', enum: ['pending', 'approved', 'denied'] } as const;
const NOTHING = { type: 'object', properties: {}, additionalProperties: false } as const;

export const listAccessRequests = defineOperation({
  method: 'GET',
  path: '/api/v1/projects/{project}/access-requests',
  summary: 'a page of the access requests, newest asked first',
  policy: READ('admin'),
  statuses: [200],
  params: { type: 'object', properties: { project: segment('Project slug.') }, required: ['project'] },
  query: PAGE_QUERY,
  answer: {
    type: 'object',
    properties: {
      requests: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            requester: { type: 'string' },
            level: { type: 'string' },
            reason: { type: 'string' },
            status: STATUS,
            created_at: WHEN,
            granted_level: { type: ['string', 'null'] },
            decided_by: { type: ['string', 'null'] },
            decided_at: WHEN,
          },
          required: ['id', 'requester', 'level', 'reason', 'status', 'created_at', 'granted_level', 'decided_by', 'decided_at'],
          additionalProperties: false,
        },
      },
      next_cursor: NEXT_CURSOR,
    },
    required: ['requests', 'next_cursor'],
    additionalProperties: false,
  },
});

export const requestAccess = defineOperation({
  method: 'POST',
  path: '/api/v1/projects/{project}/access-requests',
  summary: "ask a project's admins for a level",
  policy: { caller: 'self', stepUp: 'never', confirmed: false, audit: ['access_request.created'], bucket: 'management' },
  // 201: a new request; 200: your pending request updated, or nothing to ask (you already hold the level).
  statuses: [200, 201],
  params: { type: 'object', properties: { project: segment('Project slug.') }, required: ['project'] },
  body: {
    type: 'object',
    properties: {
      level: { type: 'string', enum: LEVELS, description: 'The level you need.' },
      reason: { type: 'string', minLength: 1, description: 'Why you need it, shown to the admins (at most 1000 characters).' },
    },
    required: ['level', 'reason'],
    additionalProperties: false,
  },
  answer: {
    type: 'object',
    properties: {
      id: { type: ['string', 'null'], description: 'The request, or null when you already hold the level.' },
      project: { type: 'string' },
      level: { type: 'string', enum: LEVELS },
      status: { type: 'string', enum: ['pending', 'unchanged'] },
      current_level: { type: 'string' },
      admins_emailed: { type: 'boolean' },
      updated: { type: 'boolean', description: 'True when your pending request was updated rather than made.' },
    },
    required: ['id', 'project', 'level', 'status', 'current_level', 'admins_emailed', 'updated'],
    additionalProperties: false,
  },
});

export const approveAccessRequest = defineOperation({
  method: 'POST',
  path: '/api/v1/projects/{project}/access-requests/{id}/approve',
  summary: 'approve an access request',
  policy: { caller: 'admin', stepUp: 'always', confirmed: true, audit: ['access_request.approved'], bucket: 'management' },
  statuses: [200],
  params: REQUEST,
  body: {
    type: 'object',
    properties: { level: { type: 'string', enum: LEVELS, default: KEY_DEFAULTS.level } },
    additionalProperties: false,
  },
  answer: {
    type: 'object',
    properties: { id: { type: 'string' }, status: { const: 'approved' }, level: { type: 'string', enum: LEVELS } },
    required: ['id', 'status', 'level'],
    additionalProperties: false,
  },
});

export const denyAccessRequest = defineOperation({
  method: 'POST',
  path: '/api/v1/projects/{project}/access-requests/{id}/deny',
  summary: 'deny an access request',
  policy: { caller: 'admin', stepUp: 'never', confirmed: true, audit: ['access_request.denied'], bucket: 'management' },
  statuses: [200],
  params: REQUEST,
  body: NOTHING,
  answer: {
    type: 'object',
    properties: { id: { type: 'string' }, status: { const: 'denied' } },
    required: ['id', 'status'],
    additionalProperties: false,
  },
});

export const myAccessRequests = defineOperation({
  method: 'GET',
  path: '/api/v1/me/access-requests',
  summary: 'a page of your access requests and their status, newest first',
  policy: READ('self'),
  statuses: [200],
  params: { type: 'object', properties: {} },
  query: PAGE_QUERY,
  answer: {
    type: 'object',
    properties: {
      requests: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            project: { type: 'string' },
            level: { type: 'string' },
            status: STATUS,
            granted_level: { type: ['string', 'null'] },
            created_at: WHEN,
            decided_at: WHEN,
          },
          required: ['id', 'project', 'level', 'status', 'granted_level', 'created_at', 'decided_at'],
          additionalProperties: false,
        },
      },
      next_cursor: NEXT_CURSOR,
    },
    required: ['requests', 'next_cursor'],
    additionalProperties: false,
  },
});
