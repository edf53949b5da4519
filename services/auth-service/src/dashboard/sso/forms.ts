/**
 * Workspace > Single sign-on forms (docs/dashboard.md "Forms"): each field a string, sent once; the
 * lengths and values are the settings service's to judge (@svc/sso: packages/sso/src/settings.ts, its bounds in
 * packages/sso/src/bounds.ts), which shows its refusal on the page.
 */
import { defineForm } from '../form.ts';

const text = { type: 'string' } as const;
const DOMAIN_FIELDS = { type: 'object', properties: { domain: text }, required: ['domain'] } as const;

export const SSO_FORMS = {
  provider: defineForm('configureSsoProvider', '/workspaces/:ws/sso/provider', {
    type: 'object',
    properties: { issuer: text, client_id: text, client_secret: text },
    required: ['issuer', 'client_id'],
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
