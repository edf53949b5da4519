/** What a person manages of their own (docs/management.md "Authorized apps"): authorized apps and personal keys. */
import { READ } from './policy.ts';
import { defineOperation, segment, WHEN } from './define.ts';

const REVOKED = {
  type: 'object',
  properties: { id: { type: 'string' }, revoked: { const: true } },
  required: ['id', 'revoked'],
  additionalProperties: false,
} as const;

export const myApps = defineOperation({
  method: 'GET',
  path: '/api/v1/me/apps',
  summary: 'list the apps you authorized (OAuth grants)',
  policy: READ('self'),
  statuses: [200],
  params: { type: 'object', properties: {} },
  answer: {
    type: 'object',
    properties: {
      apps: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            client: { type: 'string' },
            client_id: { type: 'string' },
            projects: { type: 'array', items: { type: 'string' }, description: 'Each project with the level approved for it.' },
            scopes: {
              type: 'array',
              description: 'The scope granted for each project, as its tokens carry it.',
              items: {
                type: 'object',
                properties: { project: { type: 'string' }, scope: { type: 'string' } },
                required: ['project', 'scope'],
                additionalProperties: false,
              },
            },
            created_at: WHEN,
            expires_at: WHEN,
            last_used_at: { ...WHEN, description: 'When a gateway last accepted one of its tokens (a few seconds late); null: not yet.' },
          },
          required: ['id', 'client', 'client_id', 'projects', 'scopes', 'created_at', 'expires_at', 'last_used_at'],
          additionalProperties: false,
        },
      },
    },
    required: ['apps'],
    additionalProperties: false,
  },
});

export const revokeApp = defineOperation({
  method: 'DELETE',
  path: '/api/v1/me/apps/{id}',
  summary: 'revoke an app you authorized',
  policy: { caller: 'self', stepUp: 'never', confirmed: false, audit: ['oauth_app.revoked'], bucket: 'management' },
  statuses: [200],
  params: { type: 'object', properties: { id: segment('Grant id (GET /api/v1/me/apps).') }, required: ['id'] },
  answer: REVOKED,
});

export const revokePersonalKey = defineOperation({
  method: 'DELETE',
  path: '/api/v1/me/keys/{id}',
  summary: 'revoke one of your personal keys',
  policy: { caller: 'self', stepUp: 'never', confirmed: false, audit: ['personal_key.revoked'], bucket: 'management' },
  statuses: [200],
  params: { type: 'object', properties: { id: segment('Personal key id.') }, required: ['id'] },
  answer: REVOKED,
});
