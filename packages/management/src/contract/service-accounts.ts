/** A workspace's service accounts (docs/management.md "Operations"): the owner's. */
import { KEY_DEFAULTS, LEVELS } from './defaults.ts';
import { defineOperation, segment, WHEN } from './define.ts';

const WORKSPACE = { type: 'object', properties: { workspace: segment('Workspace slug.') }, required: ['workspace'] } as const;
const ACCOUNT = {
  type: 'object',
  properties: { workspace: segment('Workspace slug.'), id: segment('Service account id (svc service-accounts list).') },
  required: ['workspace', 'id'],
} as const;
/** A service account with its new key, shown this once. */
const WITH_KEY = {
  type: 'object',
  properties: { id: { type: 'string' }, name: { type: 'string' }, key: { type: 'string', description: 'The key: shown this once.' } },
  required: ['id', 'name', 'key'],
  additionalProperties: false,
} as const;

export const listServiceAccounts = defineOperation({
  method: 'GET',
  path: '/api/v1/workspaces/{workspace}/service-accounts',
  summary: 'list service accounts',
  statuses: [200],
  params: WORKSPACE,
  answer: {
    type: 'object',
    properties: {
      service_accounts: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            name: { type: 'string' },
            grants: { type: 'object', additionalProperties: { type: 'string' }, description: 'Project slug to level.' },
            key_prefix: { type: ['string', 'null'] },
            created_at: WHEN,
            revoked: { type: 'boolean', description: 'Revoked for good: its keys are refused and it gets no new key.' },
          },
          required: ['id', 'name', 'grants', 'key_prefix', 'created_at', 'revoked'],
          additionalProperties: false,
        },
      },
    },
    required: ['service_accounts'],
    additionalProperties: false,
  },
});

export const createServiceAccount = defineOperation({
  method: 'POST',
  path: '/api/v1/workspaces/{workspace}/service-accounts',
  summary: 'create a service account',
  statuses: [201],
  params: WORKSPACE,
  body: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  answer: WITH_KEY,
});

export const grantServiceAccount = defineOperation({
  method: 'POST',
  path: '/api/v1/workspaces/{workspace}/service-accounts/{id}/grants',
  summary: 'grant a service account a project',
  statuses: [200],
  params: ACCOUNT,
  body: {
    type: 'object',
    properties: { project: { type: 'string', description: 'A project of the workspace.' }, level: { type: 'string', enum: LEVELS } },
    required: ['project', 'level'],
  },
  answer: {
    type: 'object',
    properties: { id: { type: 'string' }, project: { type: 'string' }, level: { type: 'string', enum: LEVELS } },
    required: ['id', 'project', 'level'],
    additionalProperties: false,
  },
});

export const rotateServiceAccount = defineOperation({
  method: 'POST',
  path: '/api/v1/workspaces/{workspace}/service-accounts/{id}/rotate',
  summary: "rotate a service account's key (409 when the account is revoked)",
  statuses: [201],
  params: ACCOUNT,
  body: {
    type: 'object',
    properties: {
      overlap: { type: 'string', default: KEY_DEFAULTS.overlap, description: 'How long the old key keeps working: 0m, 1h, 24h, 7d...' },
    },
  },
  answer: {
    type: 'object',
    properties: { ...WITH_KEY.properties, old_key_until: WHEN },
    required: [...WITH_KEY.required, 'old_key_until'],
    additionalProperties: false,
  },
});

export const revokeServiceAccount = defineOperation({
  method: 'DELETE',
  path: '/api/v1/workspaces/{workspace}/service-accounts/{id}',
  summary: 'revoke a service account',
  statuses: [200],
  params: ACCOUNT,
  answer: {
    type: 'object',
    properties: { id: { type: 'string' }, revoked: { const: true } },
    required: ['id', 'revoked'],
    additionalProperties: false,
  },
});
