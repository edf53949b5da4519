/** A project's members and invitations (docs/management.md "Operations", "Invitations"). */
import { READ } from './policy.ts';
import { LEVELS } from './defaults.ts';
import { defineOperation, segment, WHEN } from './define.ts';

const PROJECT = { type: 'object', properties: { project: segment('Project slug.') }, required: ['project'] } as const;
const LEVEL = { type: 'string', enum: LEVELS } as const;

export const listMembers = defineOperation({
  method: 'GET',
  path: '/api/v1/projects/{project}/members',
  summary: 'list members',
  policy: READ('member'),
  statuses: [200],
  params: PROJECT,
  answer: {
    type: 'object',
    properties: {
      members: {
        type: 'array',
        items: {
          type: 'object',
          properties: { userId: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' }, owner: { type: 'boolean' } },
          required: ['userId', 'email', 'role', 'owner'],
          additionalProperties: false,
        },
      },
      invitations: {
        type: 'array',
        description: 'Addresses invited and not yet accepted.',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            email: { type: 'string' },
            role: { type: 'string' },
            invitedBy: { type: 'string' },
            createdAt: WHEN,
            expiresAt: WHEN,
          },
          required: ['id', 'email', 'role', 'invitedBy', 'createdAt', 'expiresAt'],
          additionalProperties: false,
        },
      },
    },
    required: ['members', 'invitations'],
    additionalProperties: false,
  },
});

export const putMember = defineOperation({
  method: 'POST',
  path: '/api/v1/projects/{project}/members',
  summary: 'add a member or change a role',
  policy: {
    caller: 'admin',
    stepUp: 'always',
    confirmed: true,
    setting: 'invitation',
    audit: ['member.added', 'member.role_changed', 'member.invited'],
    bucket: 'management',
  },
  // 200: a member's role changed; 201: a confirmed account added; 202: an address invited.
  statuses: [200, 201, 202],
  params: PROJECT,
  body: {
    type: 'object',
    properties: { email: { type: 'string' }, role: LEVEL },
    required: ['email', 'role'],
    additionalProperties: false,
  },
  answer: {
    type: 'object',
    properties: {
      email: { type: 'string' },
      role: LEVEL,
      invited: { const: true, description: 'Present when the address was mailed an invitation (202): not a member yet.' },
    },
    required: ['email', 'role'],
    additionalProperties: false,
  },
});

export const cancelInvitation = defineOperation({
  method: 'DELETE',
  path: '/api/v1/projects/{project}/invitations/{id}',
  summary: 'cancel an invitation',
  policy: { caller: 'admin', stepUp: 'never', confirmed: false, audit: ['member.invitation_cancelled'], bucket: 'management' },
  statuses: [200],
  params: {
    type: 'object',
    properties: { project: segment('Project slug.'), id: segment('Invitation id (svc members list).') },
    required: ['project', 'id'],
  },
  answer: {
    type: 'object',
    properties: { id: { type: 'string' }, cancelled: { const: true } },
    required: ['id', 'cancelled'],
    additionalProperties: false,
  },
});

export const removeMember = defineOperation({
  method: 'DELETE',
  path: '/api/v1/projects/{project}/members/{user}',
  summary: 'remove a member',
  policy: { caller: 'admin', stepUp: 'never', confirmed: false, audit: ['member.removed'], bucket: 'management' },
  statuses: [200],
  params: {
    type: 'object',
    properties: { project: segment('Project slug.'), user: segment('User id (svc members list).') },
    required: ['project', 'user'],
  },
  answer: {
    type: 'object',
    properties: { user: { type: 'string' }, removed: { const: true } },
    required: ['user', 'removed'],
    additionalProperties: false,
  },
});
