/**
 * The wire adapters of a workspace's client governance (docs/management.md "Client governance"):
 * the policy and the clients waiting for approval in the wire's names and times.
 */
import type { ClientApproval, ClientPolicy } from '@svc/accounts';
import { iso, type WireAdapters } from './wire.ts';

const policy = (p: ClientPolicy) => ({ mode: p.mode, allow: p.allow, deny: p.deny, updated_at: iso(p.updatedAt) });
const approval = (a: ClientApproval) => ({
  client_id: a.clientId,
  name: a.name,
  state: a.state,
  requested_by: a.requestedBy,
  requested_at: iso(a.requestedAt),
  decided_by: a.decidedBy,
  decided_at: iso(a.decidedAt),
});

export const CLIENT_POLICY_ADAPTERS = {
  clientPolicy: async (m, a, { params }) => ({ body: policy(await m.clientPolicy(a, params.workspace)) }),
  setClientPolicy: async (m, a, { params, body }) => ({
    body: policy(await m.setClientPolicy(a, params.workspace, { mode: body.mode, allow: [...body.allow], deny: [...body.deny] })),
  }),
  listClientApprovals: async (m, a, { params }) => ({
    body: { client_approvals: (await m.listClientApprovals(a, params.workspace)).map(approval) },
  }),
  approveClient: async (m, a, { params }) => ({ body: approval(await m.approveClient(a, params.workspace, params.client)) }),
  denyClient: async (m, a, { params }) => ({ body: approval(await m.denyClient(a, params.workspace, params.client)) }),
} satisfies WireAdapters;
