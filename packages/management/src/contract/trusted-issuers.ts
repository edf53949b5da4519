/**
 * A workspace's trusted identity providers (docs/auth-service.md "Enterprise-managed
 * authorization"): the owner's. Their identity assertion grants (ID-JAG) give the workspace's
 * people project tokens without a browser.
 */
import { READ } from './policy.ts';
import { SERVICE_ACCOUNT_KEY_LIMITS } from '@svc/accounts/service-account-key-limits.ts';
import { TRUSTED_ISSUER_LIMITS } from '@svc/accounts/trusted-issuer-limits.ts';
import { defineOperation, segment, WHEN } from './define.ts';

const WORKSPACE = { type: 'object', properties: { workspace: segment('Workspace slug.') }, required: ['workspace'] } as const;
const ISSUER = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'Names the issuer in a path.' },
    issuer: { type: 'string' },
    jwks: { type: ['object', 'null'] },
    jwks_uri: { type: ['string', 'null'] },
    added_at: WHEN,
  },
  required: ['id', 'issuer', 'jwks', 'jwks_uri', 'added_at'],
  additionalProperties: false,
} as const;

export const listTrustedIssuers = defineOperation({
  method: 'GET',
  path: '/api/v1/workspaces/{workspace}/trusted-issuers',
  summary: "list the workspace's trusted identity providers",
  policy: READ('owner'),
  statuses: [200],
  params: WORKSPACE,
  answer: {
    type: 'object',
    properties: { trusted_issuers: { type: 'array', items: ISSUER } },
    required: ['trusted_issuers'],
    additionalProperties: false,
  },
});

export const addTrustedIssuer = defineOperation({
  method: 'POST',
  path: '/api/v1/workspaces/{workspace}/trusted-issuers',
  summary: 'trust an identity provider (its issuer and keys), or replace its keys',
  policy: {
    caller: 'owner',
    stepUp: 'always',
    confirmed: true,
    setting: 'trusted-issuer',
    audit: ['trusted_issuer.added'],
    bucket: 'management',
  },
  statuses: [201],
  params: WORKSPACE,
  body: {
    type: 'object',
    description: `The issuer and exactly one of jwks and jwks_uri; at most ${TRUSTED_ISSUER_LIMITS.maxIssuers} per workspace.`,
    properties: {
      issuer: { type: 'string', maxLength: TRUSTED_ISSUER_LIMITS.maxIssuerLength, description: 'Its issuer identifier (https).' },
      jwks: {
        type: 'object',
        properties: { keys: { type: 'array', minItems: 1, maxItems: SERVICE_ACCOUNT_KEY_LIMITS.maxKeys, items: { type: 'object' } } },
      },
      jwks_uri: { type: 'string', maxLength: SERVICE_ACCOUNT_KEY_LIMITS.maxJwksUriLength },
    },
    required: ['issuer'],
    additionalProperties: false,
  },
  answer: ISSUER,
});

export const removeTrustedIssuer = defineOperation({
  method: 'DELETE',
  path: '/api/v1/workspaces/{workspace}/trusted-issuers/{id}',
  summary: 'stop trusting an identity provider',
  policy: { caller: 'owner', stepUp: 'never', confirmed: false, audit: ['trusted_issuer.removed'], bucket: 'management' },
  statuses: [200],
  params: {
    type: 'object',
    properties: { workspace: segment('Workspace slug.'), id: segment('The trusted issuer id (svc trusted-issuers list).') },
    required: ['workspace', 'id'],
  },
  answer: {
    type: 'object',
    properties: { id: { type: 'string' }, removed: { const: true } },
    required: ['id', 'removed'],
    additionalProperties: false,
  },
});
