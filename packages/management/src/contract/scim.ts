/**
 * A workspace's SCIM provisioning (docs/auth-service.md "SCIM provisioning"): the owner makes and
 * revokes the bearer tokens the company's directory (Entra ID, Okta) sends to svc's SCIM endpoint.
 * A token's value is in the answer that makes it and nowhere else.
 */
import { READ } from './policy.ts';
import { SCIM_MAX_TOKENS } from '@svc/sso/scim-bounds.ts';
import { defineOperation, segment, WHEN } from './define.ts';

const WORKSPACE = { type: 'object', properties: { workspace: segment('Workspace slug.') }, required: ['workspace'] } as const;
const TOKEN = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'Names the token in a path.' },
    prefix: { type: 'string', description: 'Its first characters, to tell it apart (svc-scim-Ab3x...).' },
    created_at: WHEN,
  },
  required: ['id', 'prefix', 'created_at'],
  additionalProperties: false,
} as const;

export const scimSettings = defineOperation({
  method: 'GET',
  path: '/api/v1/workspaces/{workspace}/scim',
  summary: "the workspace's SCIM endpoint and live tokens",
  policy: READ('owner'),
  statuses: [200],
  params: WORKSPACE,
  answer: {
    type: 'object',
    properties: {
      endpoint: { type: 'string', description: "The SCIM base URL to give the company's directory (the tenant URL)." },
      tokens: { type: 'array', items: TOKEN, description: `At most ${SCIM_MAX_TOKENS} live at once.` },
      users: { type: 'integer', description: 'Users the directory has provisioned.' },
      groups: { type: 'integer', description: 'Groups the directory has provisioned.' },
    },
    required: ['endpoint', 'tokens', 'users', 'groups'],
    additionalProperties: false,
  },
});

export const createScimToken = defineOperation({
  method: 'POST',
  path: '/api/v1/workspaces/{workspace}/scim/tokens',
  summary: 'make a SCIM token (shown once)',
  policy: { caller: 'owner', stepUp: 'always', confirmed: true, setting: 'scim', audit: ['scim.token_created'], bucket: 'management' },
  statuses: [201],
  params: WORKSPACE,
  answer: {
    type: 'object',
    properties: {
      ...TOKEN.properties,
      token: { type: 'string', description: 'The bearer token: shown in this answer only.' },
      endpoint: { type: 'string', description: 'The SCIM base URL.' },
    },
    required: ['id', 'prefix', 'created_at', 'token', 'endpoint'],
    additionalProperties: false,
  },
});

export const revokeScimToken = defineOperation({
  method: 'DELETE',
  path: '/api/v1/workspaces/{workspace}/scim/tokens/{id}',
  summary: 'revoke a SCIM token',
  policy: { caller: 'owner', stepUp: 'never', confirmed: false, audit: ['scim.token_revoked'], bucket: 'management' },
  statuses: [200],
  params: {
    type: 'object',
    properties: { workspace: segment('Workspace slug.'), id: segment('The token id (svc scim tokens).') },
    required: ['workspace', 'id'],
  },
  answer: {
    type: 'object',
    properties: { id: { type: 'string' }, revoked: { type: 'boolean', const: true } },
    required: ['id', 'revoked'],
    additionalProperties: false,
  },
});
