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
  SSO_MAX_SAML_METADATA_BYTES,
  SSO_MAX_SAML_NAME_LENGTH,
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

const NAME = { type: 'string', maxLength: SSO_MAX_SAML_NAME_LENGTH } as const;

/** A SAML IdP as an owner gives it (docs/auth-service.md "SAML"): its metadata, fields, or both (a field overrides the metadata's). */
const SAML_INPUT = {
  type: 'object',
  description: 'The SAML 2.0 identity provider, when kind is saml.',
  properties: {
    metadataXml: { type: 'string', maxLength: SSO_MAX_SAML_METADATA_BYTES, description: "The IdP's metadata XML (an IDPSSODescriptor)." },
    entityId: { ...NAME, description: "The IdP's entity id." },
    ssoUrl: { ...NAME, description: "The IdP's SingleSignOnService URL for the HTTP-Redirect binding." },
    certificate: { type: 'string', maxLength: 16_384, description: "The IdP's signing certificate, PEM or base64." },
    wantResponseSigned: { type: 'boolean', description: 'Require the Response to be signed too (the assertion always must be).' },
    emailAttribute: { ...NAME, description: 'The attribute holding the address; empty: the NameID (format emailAddress).' },
    groupsAttribute: { ...NAME, description: "The attribute listing the person's groups; `groups` when empty." },
  },
  additionalProperties: false,
} as const;

/** The SAML IdP as saved, and svc's SP for it. */
const SAML_VIEW = {
  type: ['object', 'null'],
  description: 'The SAML IdP and the service provider to register at it; null for OpenID Connect.',
  properties: {
    entityId: { type: 'string' },
    ssoUrl: { type: 'string' },
    certificates: {
      type: 'array',
      items: {
        type: 'object',
        properties: { sha256: { type: 'string' }, validTo: { type: 'string' } },
        required: ['sha256', 'validTo'],
        additionalProperties: false,
      },
    },
    wantResponseSigned: { type: 'boolean' },
    emailAttribute: { type: 'string' },
    groupsAttribute: { type: 'string' },
    serviceProvider: {
      type: ['object', 'null'],
      properties: { entityId: { type: 'string' }, acsUrl: { type: 'string' }, metadataUrl: { type: 'string' } },
      required: ['entityId', 'acsUrl', 'metadataUrl'],
      additionalProperties: false,
    },
  },
  required: ['entityId', 'ssoUrl', 'certificates', 'wantResponseSigned', 'emailAttribute', 'groupsAttribute', 'serviceProvider'],
  additionalProperties: false,
} as const;

const VIEW = {
  type: 'object',
  properties: {
    provider: {
      type: ['object', 'null'],
      description: 'The OpenID provider or SAML IdP; null until one is configured. Never the client secret.',
      properties: {
        kind: { type: 'string', enum: ['oidc', 'saml'] },
        issuer: { type: 'string', description: "The OpenID issuer, or the SAML IdP's entity id." },
        clientId: { type: 'string', description: 'Empty for SAML.' },
        saml: SAML_VIEW,
        updatedAt: WHEN,
      },
      required: ['kind', 'issuer', 'clientId', 'saml', 'updatedAt'],
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
  summary: 'configure the OpenID provider or SAML IdP',
  policy: { caller: 'owner', stepUp: 'always', confirmed: true, setting: 'sso', audit: ['sso.configured'], bucket: 'management' },
  statuses: [200],
  params: WORKSPACE,
  body: {
    type: 'object',
    properties: {
      kind: {
        type: 'string',
        enum: ['oidc', 'saml'],
        default: 'oidc',
        description: 'OpenID Connect (issuer, clientId, secret) or SAML 2.0 (saml).',
      },
      issuer: { type: 'string', minLength: 1, maxLength: SSO_MAX_ISSUER_LENGTH, description: 'The issuer URL (https); OpenID Connect.' },
      clientId: { type: 'string', minLength: 1, maxLength: SSO_MAX_CLIENT_ID_LENGTH, description: 'OpenID Connect.' },
      secret: {
        type: 'string',
        maxLength: SSO_MAX_CLIENT_SECRET_LENGTH,
        default: '',
        description: 'The client secret; empty keeps the one saved. Stored sealed, never shown.',
      },
      saml: SAML_INPUT,
    },
    required: [],
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
