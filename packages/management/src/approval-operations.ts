/**
 * A project's calls held for an approval (docs/approvals.md): its admins see them and decide each
 * once. Only a person decides (a project key, even an ADMIN one, may be the very agent whose call
 * waits); approving needs a recent second factor (the operation's declaration).
 */
import { APPROVAL_TIMING, type Approval, type PasskeyApproval } from '@svc/accounts';
import type { ManagementContext } from './context.ts';
import type * as contract from './contract/approvals.ts';
import type { AnswerOf } from './contract/define.ts';
import { ManagementError, type Actor } from './types.ts';

/** The calls held for an approval, decided by the project's admins. */
export interface ApprovalOperations {
  /** The project's held calls still kept, newest first (at most APPROVAL_TIMING.maxOpen). */
  listApprovals(actor: Actor, project: string): Promise<Approval[]>;
  /**
   * Approves a pending call, of the call hash the admin was shown; 409 when it is not pending. Its
   * caller collects the answer until `expiresAt`.
   */
  approveApproval(
    actor: Actor,
    project: string,
    id: string,
    /** `passkey`: the assertion over the call the dashboard verified (docs/approvals.md "With a passkey"). */
    input: { callHash: string; passkey?: PasskeyApproval },
  ): Promise<{ expiresAt: number }>;
  /** Denies a pending call: it never runs; 409 when it is not pending. */
  denyApproval(actor: Actor, project: string, id: string): Promise<AnswerOf<typeof contract.denyApproval>>;
}

/** The operations of this group, on the shared context (each is described on ApprovalOperations). */
export function approvalOperations(ctx: ManagementContext): ApprovalOperations {
  const { accounts, note, adminOf, personOf } = ctx;

  /** Approves or denies a pending call (the two operations' one body). */
  async function decide(
    actor: Actor,
    slug: string,
    id: string,
    decision: { approve: true; callHash: string; passkey?: PasskeyApproval } | { approve: false },
  ): Promise<void> {
    const { project } = await adminOf(actor, slug, 'decide calls held for an approval');
    personOf(actor, 'decide calls held for an approval');
    const held = await accounts.approvals.get(slug, id);
    if (!held) throw new ManagementError(404, 'There is no such approval in this project.');
    const outcome = await accounts.approvals.decide(slug, id, {
      approve: decision.approve,
      callHash: decision.approve ? decision.callHash : '',
      by: actor.label,
      ...(decision.approve && decision.passkey ? { passkey: decision.passkey } : {}),
    });
    if (outcome === 'mismatch')
      throw new ManagementError(409, 'This approval is of another call: call_hash does not match the call held.', 'call_hash');
    if (outcome === 'expired_now')
      await accounts.approvals.noteStep(held, 'approval.expired', { source: actor.source, requestId: actor.requestId });
    if (outcome === 'expired_now' || outcome === 'expired') throw new ManagementError(409, 'This call expired before it was decided.');
    if (outcome === 'missing') throw new ManagementError(404, 'There is no such approval in this project.');
    if (outcome !== 'ok') throw new ManagementError(409, `This call was already ${outcome}.`);
    await note(actor, project.workspace, decision.approve ? 'approval.approved' : 'approval.denied', `approval:${id} (${held.tool})`, {
      project: slug,
      tool: held.tool,
      caller: held.caller.label,
      call_hash: held.callHash,
      ...(decision.approve && decision.passkey ? { passkey: decision.passkey.credentialId } : {}),
    });
  }

  return {
    async listApprovals(actor, slug) {
      await adminOf(actor, slug, 'see the calls held for an approval');
      const now = ctx.now();
      // A pending or approved call past its deadline is expired, whether or not anyone asked since.
      return (await accounts.approvals.list(slug)).map((a) =>
        (a.status === 'pending' || a.status === 'approved') && a.expiresAt <= now ? { ...a, status: 'expired' } : a,
      );
    },

    async approveApproval(actor, slug, id, input) {
      await decide(actor, slug, id, { approve: true, ...input });
      return { expiresAt: ctx.now() + APPROVAL_TIMING.collectWithinMs };
    },

    async denyApproval(actor, slug, id) {
      await decide(actor, slug, id, { approve: false });
      return { id, status: 'denied' };
    },
  };
}
