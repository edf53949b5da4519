/**
 * Workspace > Single sign-on forms (docs/dashboard.md "Forms"): each field a string, sent once; the
 * lengths and values are the settings service's to judge (@svc/sso: packages/sso/src/settings.ts, its bounds in
 * packages/sso/src/bounds.ts), which shows its refusal on the page.
 */
import { SSO_MAX_SAML_METADATA_BYTES } from '@svc/sso';
import { defineForm } from '../form.ts';

const text = { type: 'string' } as const;
const DOMAIN_FIELDS = { type: 'object', properties: { domain: text }, required: ['domain'] } as const;

export const SSO_FORMS = {
  provider: defineForm('configureSsoProvider', '/workspaces/:ws/sso/provider', {
    type: 'object',
    properties: { issuer: text, client_id: text, client_secret: text },
    required: ['issuer', 'client_id'],
  }),
  // docs/auth-service.md "SAML": the IdP by its metadata or fields; its body is read up to SAML_FORM_BODY_LIMIT.
  saml: defineForm('configureSsoProvider', '/workspaces/:ws/sso/saml', {
    type: 'object',
    properties: {
      metadata_xml: text,
      entity_id: text,
      sso_url: text,
      certificate: text,
      want_response_signed: { type: 'string', enum: ['1'] },
      email_attribute: text,
      groups_attribute: text,
    },
  }),
  policy: defineForm('setSsoPolicy', '/workspaces/:ws/sso/policy', {
    type: 'object',
    properties: { default_role: text, required: { type: 'string', enum: ['1'] }, group_roles: text },
    required: ['default_role'],
  }),
  claim: defineForm('claimSsoDomain', '/workspaces/:ws/sso/domains', DOMAIN_FIELDS),
  verify: defineForm('verifySsoDomain', '/workspaces/:ws/sso/domains/verify', DOMAIN_FIELDS),
  release: defineForm('releaseSsoDomain', '/workspaces/:ws/sso/domains/release', DOMAIN_FIELDS),
} as const;

/** The SAML form carries the IdP's metadata: its body may be as large as the metadata, urlencoded (up to three bytes a byte). */
export const SAML_FORM_BODY_LIMIT = 3 * SSO_MAX_SAML_METADATA_BYTES + 16 * 1024;
