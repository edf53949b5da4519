/**
 * A workspace's single sign-on settings (docs/management.md "Single sign-on", docs/auth-service.md
 * "Single sign-on"): the owner's, through a personal key. No answer holds the client secret.
 */
import { READ } from './policy.ts';
import {
  SSO_MAX_CLIENT_ID_LENGTH,
  SSO_MAX_CLIENT_SECRET_LENGTH,
  SSO_MAX_DOMAINS,
  SSO_MAX_GROUP_LENGTH,
  SSO_MAX_GROUP_MAPPINGS,
  SSO_MAX_ISSUER_LENGTH,
} from '@svc/sso/bounds.ts';
import { defineOperation, segment, WHEN } from './define.ts';

const WORKSPACE = { type: 'object', properties: { workspace: segment('Workspace slug.') }, required: ['workspace'] } as const;
const DOMAIN_PARAMS = {
  type: 'object',
  properties: { workspace: segment('Workspace slug.'), domain: segment('The email domain, e.g. example.com.') },
  required: ['workspace', 'domain'],
} as const;
const ROLE = { type: 'string', enum: ['NONE', 'VIEWER', 'EDITOR', 'ADMIN'] } as const;

const CLAIM = {
  type: 'object',
  properties: {
    domain: { type: 'string' },
    record: {
      type: 'object',
      description: 'The DNS TXT record that proves the domain: publish `value` at `name`.',
      properties: { name: { type: 'string' }, value: { type: 'string' } },
      required: ['name', 'value'],
      additionalProperties: false,
    },
    verifiedAt: { ...WHEN, description: 'When the domain was proven; null while it waits for its proof.' },
  },
  required: ['domain', 'record', 'verifiedAt'],
  additionalProperties: false,
} as const;

const VIEW = {
  type: 'object',
  properties: {
    provider: {
      type: ['object', 'null'],
      description: 'The OpenID provider; null until one is configured. Never the client secret.',
      properties: { issuer: { type: 'string' }, clientId: { type: 'string' }, updatedAt: WHEN },
      required: ['issuer', 'clientId', 'updatedAt'],
      additionalProperties: false,
    },
    policy: {
      type: 'object',
      properties: {
        defaultRole: ROLE,
        required: { type: 'boolean', description: 'Members must use SSO: no password sign-in at proven domains.' },
        groupRoles: {
          type: 'array',
          items: {
            type: 'object',
            properties: { group: { type: 'string' }, role: ROLE },
            required: ['group', 'role'],
            additionalProperties: false,
          },
        },
      },
      required: ['defaultRole', 'required', 'groupRoles'],
      additionalProperties: false,
    },
    domains: { type: 'array', items: CLAIM },
  },
  required: ['provider', 'policy', 'domains'],
  additionalProperties: false,
} as const;

export const ssoSettings = defineOperation({
  method: 'GET',
  path: '/api/v1/workspaces/{workspace}/sso',
  summary: 'single sign-on settings',
  policy: READ('owner'),
  statuses: [200],
  params: WORKSPACE,
  answer: VIEW,
});

export const configureSsoProvider = defineOperation({
  method: 'POST',
  path: '/api/v1/workspaces/{workspace}/sso/provider',
  summary: 'configure the OpenID provider',
  policy: { caller: 'owner', stepUp: 'always', confirmed: true, setting: 'sso', audit: ['sso.configured'], bucket: 'management' },
  statuses: [200],
  params: WORKSPACE,
  body: {
    type: 'object',
    properties: {
      issuer: { type: 'string', minLength: 1, maxLength: SSO_MAX_ISSUER_LENGTH, description: 'The issuer URL (https).' },
      clientId: { type: 'string', minLength: 1, maxLength: SSO_MAX_CLIENT_ID_LENGTH },
      secret: {
        type: 'string',
        maxLength: SSO_MAX_CLIENT_SECRET_LENGTH,
        default: '',
        description: 'The client secret; empty keeps the one saved. Stored sealed, never shown.',
      },
    },
    required: ['issuer', 'clientId'],
    additionalProperties: false,
  },
  answer: VIEW,
});

export const setSsoPolicy = defineOperation({
  method: 'POST',
  path: '/api/v1/workspaces/{workspace}/sso/policy',
  summary: 'set the single sign-on policy',
  policy: { caller: 'owner', stepUp: 'always', confirmed: true, setting: 'sso', audit: ['sso.policy_changed'], bucket: 'management' },
  statuses: [200],
  params: WORKSPACE,
  body: {
    type: 'object',
    properties: {
      defaultRole: { ...ROLE, description: "A new member's role on each project when no group maps to one (NONE: no access)." },
      required: { type: 'boolean', default: false, description: 'Members must use SSO (needs a provider and a proven domain).' },
      groupRoles: {
        type: 'array',
        maxItems: SSO_MAX_GROUP_MAPPINGS,
        default: [],
        items: {
          type: 'object',
          properties: { group: { type: 'string', minLength: 1, maxLength: SSO_MAX_GROUP_LENGTH }, role: ROLE },
          required: ['group', 'role'],
        },
      },
    },
    required: ['defaultRole'],
    additionalProperties: false,
  },
  answer: VIEW,
});

export const claimSsoDomain = defineOperation({
  method: 'POST',
  path: '/api/v1/workspaces/{workspace}/sso/domains',
  summary: 'claim an email domain',
  policy: { caller: 'owner', stepUp: 'always', confirmed: true, setting: 'sso', audit: ['sso.domain_claimed'], bucket: 'management' },
  // 201: claimed now; 200: the workspace had claimed it already.
  statuses: [201, 200],
  params: WORKSPACE,
  body: {
    type: 'object',
    properties: { domain: { type: 'string', minLength: 1, maxLength: 253, description: `At most ${SSO_MAX_DOMAINS} a workspace.` } },
    required: ['domain'],
    additionalProperties: false,
  },
  answer: CLAIM,
});

export const verifySsoDomain = defineOperation({
  method: 'POST',
  path: '/api/v1/workspaces/{workspace}/sso/domains/{domain}/verify',
  summary: "look up a domain's proof",
  policy: { caller: 'owner', stepUp: 'always', confirmed: true, setting: 'sso', audit: ['sso.domain_verified'], bucket: 'management' },
  statuses: [200],
  params: DOMAIN_PARAMS,
  answer: CLAIM,
});

export const releaseSsoDomain = defineOperation({
  method: 'DELETE',
  path: '/api/v1/workspaces/{workspace}/sso/domains/{domain}',
  summary: 'release a domain',
  policy: { caller: 'owner', stepUp: 'always', confirmed: false, audit: ['sso.domain_released'], bucket: 'management' },
  statuses: [200],
  params: DOMAIN_PARAMS,
  answer: {
    type: 'object',
    properties: { domain: { type: 'string' }, released: { type: 'boolean', const: true } },
    required: ['domain', 'released'],
    additionalProperties: false,
  },
});
