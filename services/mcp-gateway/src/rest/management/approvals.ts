/** The routes of calls held for an approval (docs/approvals.md). */
import { handle, iso, type ManagementRoute } from './handle.ts';

export const APPROVAL_ROUTES: readonly ManagementRoute[] = [
  handle('listApprovals', async (m, a, { params }) => {
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
  }),
  handle('approveApproval', async (m, a, { params, body }) => {
    const { expiresAt } = await m.decideApproval(a, params.project, params.id, { approve: true, callHash: body.call_hash });
    return { body: { id: params.id, status: 'approved', expires_at: iso(expiresAt) } };
  }),
  handle('denyApproval', async (m, a, { params }) => {
    await m.decideApproval(a, params.project, params.id, { approve: false });
    return { body: { id: params.id, status: 'denied' } };
  }),
];
