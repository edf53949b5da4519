/**
 * A workspace's second-factor policy and an owner's reset of a member's factors (docs/management.md
 * "Second factor"; docs/auth-service.md "Second factor"): the workspace owner's.
 */
import { READ } from './policy.ts';
import { defineOperation, segment } from './define.ts';

const WORKSPACE = { type: 'object', properties: { workspace: segment('Workspace slug.') }, required: ['workspace'] } as const;
const POLICY = {
  type: 'object',
  properties: { required: { type: 'boolean', description: 'Members must use a second factor.' } },
  required: ['required'],
  additionalProperties: false,
} as const;

export const factorPolicy = defineOperation({
  method: 'GET',
  path: '/api/v1/workspaces/{workspace}/factor-policy',
  summary: 'the second-factor policy',
  policy: READ('owner'),
  statuses: [200],
  params: WORKSPACE,
  answer: POLICY,
});

export const setFactorPolicy = defineOperation({
  method: 'PATCH',
  path: '/api/v1/workspaces/{workspace}/factor-policy',
  summary: 'require a second factor of members, or not',
  policy: { caller: 'owner', stepUp: 'always', confirmed: false, audit: ['factor.policy_changed'], bucket: 'management' },
  statuses: [200],
  params: WORKSPACE,
  body: POLICY,
  answer: POLICY,
});

export const resetFactors = defineOperation({
  method: 'DELETE',
  path: '/api/v1/workspaces/{workspace}/members/{user}/factors',
  summary: "reset a member's second factors",
  policy: { caller: 'owner', stepUp: 'always', confirmed: false, audit: ['factor.reset'], bucket: 'management' },
  statuses: [200],
  params: {
    type: 'object',
    properties: { workspace: segment('Workspace slug.'), user: segment('User id (svc members list).') },
    required: ['workspace', 'user'],
  },
  answer: {
    type: 'object',
    properties: { user: { type: 'string' }, reset: { const: true } },
    required: ['user', 'reset'],
    additionalProperties: false,
  },
});
