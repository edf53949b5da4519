/**
 * Client governance of a workspace (docs/management.md "Client governance"): the owner decides
 * which OAuth clients its people may connect to its projects (allow and deny lists, and a mode),
 * and approves or denies the clients that wait in approval mode.
 */
import { CLIENT_POLICY_LIMITS, CLIENT_POLICY_MODES, CLIENT_RULE_KINDS } from '@svc/accounts/client-policy-rules.ts';
import { READ } from './policy.ts';
import { defineOperation, segment, WHEN } from './define.ts';

const WORKSPACE = { type: 'object', properties: { workspace: segment('Workspace slug.') }, required: ['workspace'] } as const;
const CLIENT = {
  type: 'object',
  properties: {
    workspace: segment('Workspace slug.'),
    client: segment('The client id, percent-encoded (a metadata document client id is a URL).'),
  },
  required: ['workspace', 'client'],
} as const;
const RULE = {
  type: 'object',
  properties: {
    kind: {
      enum: CLIENT_RULE_KINDS,
      description:
        'client_id: the id exactly; host: a metadata document client id host (*.example.com for subdomains); name: the registered name, any case.',
    },
    value: { type: 'string', minLength: 1, maxLength: CLIENT_POLICY_LIMITS.maxValueLength },
  },
  required: ['kind', 'value'],
  additionalProperties: false,
} as const;
const RULES = { type: 'array', maxItems: CLIENT_POLICY_LIMITS.maxRules, items: RULE, default: [] } as const;
const POLICY = {
  type: 'object',
  properties: {
    mode: {
      enum: CLIENT_POLICY_MODES,
      description: 'open: any client not denied; allowlist: only clients allowed; approval: others wait for the owner.',
    },
    allow: { type: 'array', items: RULE },
    deny: { type: 'array', items: RULE },
    updated_at: WHEN,
  },
  required: ['mode', 'allow', 'deny', 'updated_at'],
  additionalProperties: false,
} as const;
const APPROVAL = {
  type: 'object',
  properties: {
    client_id: { type: 'string' },
    name: { type: ['string', 'null'] },
    state: { enum: ['pending', 'approved', 'denied'] },
    requested_by: { type: 'string' },
    requested_at: WHEN,
    decided_by: { type: ['string', 'null'] },
    decided_at: WHEN,
  },
  required: ['client_id', 'name', 'state', 'requested_by', 'requested_at', 'decided_by', 'decided_at'],
  additionalProperties: false,
} as const;

export const clientPolicy = defineOperation({
  method: 'GET',
  path: '/api/v1/workspaces/{workspace}/client-policy',
  summary: "the workspace's client policy",
  policy: READ('owner'),
  statuses: [200],
  params: WORKSPACE,
  answer: POLICY,
});

export const setClientPolicy = defineOperation({
  method: 'PATCH',
  path: '/api/v1/workspaces/{workspace}/client-policy',
  summary: 'decide which OAuth clients may connect to the workspace',
  policy: { caller: 'owner', stepUp: 'always', confirmed: true, audit: ['client_policy.changed'], bucket: 'management' },
  statuses: [200],
  params: WORKSPACE,
  body: {
    type: 'object',
    description: `The whole policy, replacing the one before; each list at most ${CLIENT_POLICY_LIMITS.maxRules} rules. The deny list wins.`,
    properties: { mode: POLICY.properties.mode, allow: RULES, deny: RULES },
    required: ['mode'],
    additionalProperties: false,
  },
  answer: POLICY,
});

export const listClientApprovals = defineOperation({
  method: 'GET',
  path: '/api/v1/workspaces/{workspace}/client-approvals',
  summary: 'the clients waiting for approval, and those decided',
  policy: READ('owner'),
  statuses: [200],
  params: WORKSPACE,
  answer: {
    type: 'object',
    properties: { client_approvals: { type: 'array', maxItems: CLIENT_POLICY_LIMITS.maxApprovals, items: APPROVAL } },
    required: ['client_approvals'],
    additionalProperties: false,
  },
});

export const approveClient = defineOperation({
  method: 'POST',
  path: '/api/v1/workspaces/{workspace}/client-approvals/{client}/approve',
  summary: "approve a client for the workspace's people",
  policy: { caller: 'owner', stepUp: 'always', confirmed: true, audit: ['client.approved'], bucket: 'management' },
  statuses: [200],
  params: CLIENT,
  answer: APPROVAL,
});

export const denyClient = defineOperation({
  method: 'POST',
  path: '/api/v1/workspaces/{workspace}/client-approvals/{client}/deny',
  summary: "deny a client to the workspace's people",
  policy: { caller: 'owner', stepUp: 'never', confirmed: false, audit: ['client.denied'], bucket: 'management' },
  statuses: [200],
  params: CLIENT,
  answer: APPROVAL,
});
