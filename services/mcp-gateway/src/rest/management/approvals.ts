/**
 * The wire adapters of calls held for an approval (docs/approvals.md): the list answers in the
 * wire's names and times; approving takes the wire's `call_hash`. Denying answers as the layer does.
 */
import { iso, type WireAdapters } from './wire.ts';

export const APPROVAL_ADAPTERS = {
  listApprovals: async (m, a, { params }) => {
    const approvals = (await m.listApprovals(a, params.project)).map((r) => ({
      id: r.id,
      tool: r.tool,
      arguments: r.arguments,
      caller: r.caller.label,
      client_id: r.caller.clientId,
      call_hash: r.callHash,
      status: r.status,
      created_at: iso(r.createdAt),
      expires_at: iso(r.expiresAt),
      decided_by: r.decidedBy,
      decided_at: iso(r.decidedAt),
      passkey: r.passkey
        ? {
            credential_id: r.passkey.credentialId,
            nonce: r.passkey.nonce,
            client_data_json: r.passkey.clientDataJSON,
            authenticator_data: r.passkey.authenticatorData,
            signature: r.passkey.signature,
          }
        : null,
    }));
    return { body: { approvals } };
  },
  approveApproval: async (m, a, { params, body }) => {
    const { expiresAt } = await m.approveApproval(a, params.project, params.id, { callHash: body.call_hash });
    return { body: { id: params.id, status: 'approved', expires_at: iso(expiresAt) } };
  },
} satisfies WireAdapters;
