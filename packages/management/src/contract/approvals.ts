/** Calls held for an approval (docs/approvals.md): a project's, seen and decided by its admins. */
import { READ } from './policy.ts';
import { defineOperation, segment, WHEN } from './define.ts';

const ONE = {
  type: 'object',
  properties: { project: segment('Project slug.'), id: segment('Approval id (the approval_id the held call was answered with).') },
  required: ['project', 'id'],
} as const;
const STATUS = { type: 'string', enum: ['pending', 'approved', 'denied', 'expired', 'cancelled', 'running', 'done'] } as const;
const CALL_HASH = {
  type: 'string',
  minLength: 64,
  maxLength: 64,
  description: 'The call_hash the list shows: the approval is of that exact call (tool, arguments, caller) and no other.',
} as const;

export const listApprovals = defineOperation({
  method: 'GET',
  path: '/api/v1/projects/{project}/approvals',
  summary: 'the calls held for an approval and what became of them, newest first',
  policy: READ('admin'),
  statuses: [200],
  params: { type: 'object', properties: { project: segment('Project slug.') }, required: ['project'] },
  answer: {
    type: 'object',
    properties: {
      approvals: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            tool: { type: 'string' },
            arguments: { type: 'object', description: 'The arguments exactly as the call gave them; they run as they are.' },
            caller: { type: 'string', description: 'Who made the call: an email, a key name, a service account.' },
            client_id: { type: 'string', description: 'Through what: the OAuth client, or svc-key:<key id>.' },
            call_hash: { type: 'string' },
            status: STATUS,
            created_at: WHEN,
            expires_at: WHEN,
            decided_by: { type: ['string', 'null'] },
            decided_at: WHEN,
            passkey: {
              type: ['object', 'null'],
              description:
                'The passkey assertion the approval was given with (docs/approvals.md "With a passkey"): its challenge is SHA-256("svc-approval/v1\\n" + id + "\\n" + call_hash + "\\n" + nonce); null: approved without one, or not approved.',
              properties: {
                credential_id: { type: 'string' },
                nonce: { type: 'string' },
                client_data_json: { type: 'string' },
                authenticator_data: { type: 'string' },
                signature: { type: 'string' },
              },
              required: ['credential_id', 'nonce', 'client_data_json', 'authenticator_data', 'signature'],
              additionalProperties: false,
            },
          },
          required: [
            'id',
            'tool',
            'arguments',
            'caller',
            'client_id',
            'call_hash',
            'status',
            'created_at',
            'expires_at',
            'decided_by',
            'decided_at',
            'passkey',
          ],
          additionalProperties: false,
        },
      },
    },
    required: ['approvals'],
    additionalProperties: false,
  },
});

export const approveApproval = defineOperation({
  method: 'POST',
  path: '/api/v1/projects/{project}/approvals/{id}/approve',
  summary: 'approve a held call: it runs once, as its caller, when they next ask for its status',
  policy: { caller: 'admin', stepUp: 'always', confirmed: true, audit: ['approval.approved'], bucket: 'management' },
  statuses: [200],
  params: ONE,
  body: { type: 'object', properties: { call_hash: CALL_HASH }, required: ['call_hash'], additionalProperties: false },
  answer: {
    type: 'object',
    properties: { id: { type: 'string' }, status: { const: 'approved' }, expires_at: WHEN },
    required: ['id', 'status', 'expires_at'],
    additionalProperties: false,
  },
});

export const denyApproval = defineOperation({
  method: 'POST',
  path: '/api/v1/projects/{project}/approvals/{id}/deny',
  summary: 'deny a held call: it never runs',
  policy: { caller: 'admin', stepUp: 'never', confirmed: false, audit: ['approval.denied'], bucket: 'management' },
  statuses: [200],
  params: ONE,
  body: { type: 'object', properties: {}, additionalProperties: false },
  answer: {
    type: 'object',
    properties: { id: { type: 'string' }, status: { const: 'denied' } },
    required: ['id', 'status'],
    additionalProperties: false,
  },
});
