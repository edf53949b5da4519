/** A workspace's service accounts (docs/management.md "Operations"): the owner's. */
import { READ } from './policy.ts';
import { SERVICE_ACCOUNT_KEY_LIMITS } from '@svc/accounts/service-account-key-limits.ts';
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
  policy: READ('owner'),
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
  policy: { caller: 'owner', stepUp: 'always', confirmed: false, audit: ['service_account.created'], bucket: 'management' },
  statuses: [201],
  params: WORKSPACE,
  body: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
  answer: WITH_KEY,
});

export const grantServiceAccount = defineOperation({
  method: 'POST',
  path: '/api/v1/workspaces/{workspace}/service-accounts/{id}/grants',
  summary: 'grant a service account a project',
  policy: { caller: 'owner', stepUp: 'always', confirmed: false, audit: ['service_account.granted'], bucket: 'management' },
  statuses: [200],
  params: ACCOUNT,
  body: {
    type: 'object',
    properties: { project: { type: 'string', description: 'A project of the workspace.' }, level: { type: 'string', enum: LEVELS } },
    required: ['project', 'level'],
    additionalProperties: false,
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
  policy: { caller: 'owner', stepUp: 'always', confirmed: false, audit: ['service_account.key_rotated'], bucket: 'management' },
  statuses: [201],
  params: ACCOUNT,
  body: {
    type: 'object',
    properties: {
      overlap: { type: 'string', default: KEY_DEFAULTS.overlap, description: 'How long the old key keeps working: 0m, 1h, 24h, 7d...' },
    },
    additionalProperties: false,
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
  policy: { caller: 'owner', stepUp: 'never', confirmed: false, audit: ['service_account.revoked'], bucket: 'management' },
  statuses: [200],
  params: ACCOUNT,
  answer: {
    type: 'object',
    properties: { id: { type: 'string' }, revoked: { const: true } },
    required: ['id', 'revoked'],
    additionalProperties: false,
  },
});

/** A service account's OAuth client (docs/auth-service.md "Client credentials"): its id, where it gets tokens, its keys. */
const CLIENT = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    client_id: { type: 'string', description: 'The OAuth client id: the service account id.' },
    token_endpoint: { type: 'string', description: 'Where it asks for tokens (grant_type=client_credentials).' },
    token_endpoint_auth_method: { const: 'private_key_jwt' },
    resources: {
      type: 'array',
      items: { type: 'string' },
      description: 'The MCP endpoints it may ask a token for (resource): its granted projects and its team endpoint.',
    },
    jwks: { type: ['object', 'null'], description: 'The public JWK Set it signs its assertions with, or null.' },
    jwks_uri: { type: ['string', 'null'], description: 'The https URL of its JWK Set, or null.' },
  },
  required: ['id', 'client_id', 'token_endpoint', 'token_endpoint_auth_method', 'resources', 'jwks', 'jwks_uri'],
  additionalProperties: false,
} as const;

export const getServiceAccountClient = defineOperation({
  method: 'GET',
  path: '/api/v1/workspaces/{workspace}/service-accounts/{id}/client-keys',
  summary: "show a service account's OAuth client and its public keys",
  policy: READ('owner'),
  statuses: [200],
  params: ACCOUNT,
  answer: CLIENT,
});

export const setServiceAccountClientKeys = defineOperation({
  method: 'POST',
  path: '/api/v1/workspaces/{workspace}/service-accounts/{id}/client-keys',
  summary: "set a service account's public keys (a JWK Set or a JWKS URL), replacing any before",
  policy: {
    caller: 'owner',
    stepUp: 'always',
    confirmed: true,
    setting: 'client-keys',
    audit: ['service_account.client_keys_set'],
    bucket: 'management',
  },
  statuses: [200],
  params: ACCOUNT,
  body: {
    type: 'object',
    description: 'Exactly one of jwks and jwks_uri.',
    properties: {
      jwks: {
        type: 'object',
        description: `A public JWK Set: at most ${SERVICE_ACCOUNT_KEY_LIMITS.maxKeys} keys, ${SERVICE_ACCOUNT_KEY_LIMITS.maxJwksBytes} bytes of JSON.`,
        properties: {
          keys: {
            type: 'array',
            minItems: 1,
            maxItems: SERVICE_ACCOUNT_KEY_LIMITS.maxKeys,
            items: {
              type: 'object',
              properties: {
                kty: { type: 'string', enum: ['EC', 'RSA', 'OKP'] },
                kid: { type: 'string', minLength: 1, maxLength: SERVICE_ACCOUNT_KEY_LIMITS.maxKidLength },
              },
              required: ['kty', 'kid'],
            },
          },
        },
      },
      jwks_uri: { type: 'string', maxLength: SERVICE_ACCOUNT_KEY_LIMITS.maxJwksUriLength, description: 'An https URL of a JWK Set.' },
    },
    additionalProperties: false,
  },
  answer: CLIENT,
});

export const removeServiceAccountClientKeys = defineOperation({
  method: 'DELETE',
  path: '/api/v1/workspaces/{workspace}/service-accounts/{id}/client-keys',
  summary: "remove a service account's public keys: its client stops authenticating",
  policy: { caller: 'owner', stepUp: 'never', confirmed: false, audit: ['service_account.client_keys_removed'], bucket: 'management' },
  statuses: [200],
  params: ACCOUNT,
  answer: {
    type: 'object',
    properties: { id: { type: 'string' }, removed: { type: 'boolean' } },
    required: ['id', 'removed'],
    additionalProperties: false,
  },
});
