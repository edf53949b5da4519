/**
 * A workspace's workload issuers (docs/workload-identity.md): the owner's. A token one of them
 * signs for a workload (a GitHub Actions job, a Kubernetes pod, a SPIFFE workload) buys, through
 * the issuer's rules, a short-lived token of one of the workspace's service accounts with no stored
 * secret. The rules live inside their issuer: an issuer and its rules are one trust decision, added,
 * replaced and removed as one, step-up and audit included.
 */
import { SERVICE_ACCOUNT_KEY_LIMITS } from '@svc/accounts/service-account-key-limits.ts';
import { WORKLOAD_ISSUER_LIMITS } from '@svc/accounts/workload-issuer-limits.ts';
import { WORKLOAD_ISSUER_KINDS } from '@svc/accounts/workload-rules.ts';
import { READ } from './policy.ts';
import { defineOperation, segment, WHEN } from './define.ts';

const WORKSPACE = { type: 'object', properties: { workspace: segment('Workspace slug.') }, required: ['workspace'] } as const;
const KINDS = WORKLOAD_ISSUER_KINDS;
const RULE = {
  type: 'object',
  properties: {
    service_account: { type: 'string', maxLength: 128, description: 'The service account (bot_...) a matching token becomes.' },
    claims: {
      type: 'object',
      // At least one: checked by the store, which names the rule (a schema sample of {} must reach the rules).
      maxProperties: WORKLOAD_ISSUER_LIMITS.maxClaims,
      additionalProperties: { type: 'string', minLength: 1, maxLength: WORKLOAD_ISSUER_LIMITS.maxPatternLength },
      description: 'Claim name to pattern: exact, `*` any run without `/`, `**` any run.',
    },
  },
  required: ['service_account', 'claims'],
  additionalProperties: false,
} as const;
const ISSUER = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'Names the issuer in a path.' },
    kind: { type: 'string', enum: KINDS },
    issuer: { type: 'string' },
    audience: { type: ['string', 'null'], description: "The aud its tokens must name; null: the auth-service's issuer URL." },
    jwks: { type: ['object', 'null'] },
    jwks_uri: { type: ['string', 'null'] },
    rules: { type: 'array', items: RULE },
    added_at: WHEN,
  },
  required: ['id', 'kind', 'issuer', 'audience', 'jwks', 'jwks_uri', 'rules', 'added_at'],
  additionalProperties: false,
} as const;

export const listWorkloadIssuers = defineOperation({
  method: 'GET',
  path: '/api/v1/workspaces/{workspace}/workload-issuers',
  summary: "list the workspace's workload issuers and their rules",
  policy: READ('owner'),
  statuses: [200],
  params: WORKSPACE,
  answer: {
    type: 'object',
    properties: { workload_issuers: { type: 'array', items: ISSUER } },
    required: ['workload_issuers'],
    additionalProperties: false,
  },
});

export const addWorkloadIssuer = defineOperation({
  method: 'POST',
  path: '/api/v1/workspaces/{workspace}/workload-issuers',
  summary: 'trust a workload issuer (GitHub Actions, a Kubernetes cluster, a SPIFFE trust domain) with its rules, or replace them',
  policy: {
    caller: 'owner',
    stepUp: 'always',
    confirmed: true,
    setting: 'workload-issuer',
    audit: ['workload_issuer.added'],
    bucket: 'management',
  },
  statuses: [201],
  params: WORKSPACE,
  body: {
    type: 'object',
    description: `The kind, the issuer (github-actions: GitHub's, unless given), keys (jwks or jwks_uri; github-actions: GitHub's JWKS URL, unless given) and 1 to ${WORKLOAD_ISSUER_LIMITS.maxRules} rules; at most ${WORKLOAD_ISSUER_LIMITS.maxIssuers} issuers per workspace.`,
    properties: {
      kind: { type: 'string', enum: KINDS },
      issuer: {
        type: 'string',
        maxLength: WORKLOAD_ISSUER_LIMITS.maxIssuerLength,
        description: 'The https issuer of its tokens; for spiffe, the trust domain as spiffe://example.org.',
      },
      audience: {
        type: 'string',
        maxLength: WORKLOAD_ISSUER_LIMITS.maxIssuerLength,
        description: "The aud its tokens must name; the auth-service's issuer URL unless given.",
      },
      jwks: {
        type: 'object',
        properties: { keys: { type: 'array', minItems: 1, maxItems: SERVICE_ACCOUNT_KEY_LIMITS.maxKeys, items: { type: 'object' } } },
      },
      jwks_uri: { type: 'string', maxLength: SERVICE_ACCOUNT_KEY_LIMITS.maxJwksUriLength },
      rules: { type: 'array', minItems: 1, maxItems: WORKLOAD_ISSUER_LIMITS.maxRules, items: RULE },
    },
    required: ['kind', 'rules'],
    additionalProperties: false,
  },
  answer: ISSUER,
});

export const removeWorkloadIssuer = defineOperation({
  method: 'DELETE',
  path: '/api/v1/workspaces/{workspace}/workload-issuers/{id}',
  summary: 'stop trusting a workload issuer',
  policy: { caller: 'owner', stepUp: 'never', confirmed: false, audit: ['workload_issuer.removed'], bucket: 'management' },
  statuses: [200],
  params: {
    type: 'object',
    properties: { workspace: segment('Workspace slug.'), id: segment('The workload issuer id (svc workload-issuers list).') },
    required: ['workspace', 'id'],
  },
  answer: {
    type: 'object',
    properties: { id: { type: 'string' }, removed: { const: true } },
    required: ['id', 'removed'],
    additionalProperties: false,
  },
});
