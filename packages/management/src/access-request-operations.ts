/**
 * A project's access requests (docs/management.md "Access request lifecycle"): an ADMIN of the
 * project sees and decides them; only a confirmed account becomes a member by a decision; the
 * admins are mailed of a new one.
 */
import type { KeyLevel } from '@svc/policy';
import { isKeyLevel } from '@svc/policy';
import type { ManagementContext } from './context.ts';
import type * as contract from './contract/access-requests.ts';
import type { AnswerOf } from './contract/define.ts';
import { parsePageQuery, type PageInput } from './list-page.ts';
import { ManagementError, type Actor, type RequestRow } from './types.ts';
import { AccountError, type RequestOutcome } from '@svc/accounts';

/** A project's access requests, decided by its ADMINs. */
export interface AccessRequestOperations {
  /** A page of the project's access requests, newest asked first (docs/management.md "Lists and pages"). */
  listAccessRequests(
    actor: Actor,
    project: string,
    page?: PageInput,
  ): Promise<{ requests: RequestRow[]; canDecide: boolean; next: string | null }>;
  /** Approves a pending request at `level` (which may be less than was asked); 409 when already decided. */
  approveAccessRequest(
    actor: Actor,
    project: string,
    id: string,
    input: { level: string },
  ): Promise<AnswerOf<typeof contract.approveAccessRequest>>;
  /** Denies a pending request; 409 when already decided. */
  denyAccessRequest(actor: Actor, project: string, id: string): Promise<AnswerOf<typeof contract.denyAccessRequest>>;
}

/** What the dashboard's menu and the access-request doors ask besides the operations. */
export interface AccessRequestInternals {
  /** How many of the project's access requests await a decision: 0 for an actor who may not decide them. */
  pendingRequests(actor: Actor, project: string): Promise<number>;
  /** Mails the project's admins of a new access request when it is due a mail (RequestOutcome.notifyAdmins); says whether it did. Never fails the request. */
  accessRequested(request: RequestOutcome): Promise<{ mailed: boolean }>;
}

/** The operations of this group, on the shared context (each is described on AccessRequestOperations). */
export function accessRequestOperations(ctx: ManagementContext): AccessRequestOperations & AccessRequestInternals {
  const { accounts, deps, notices, notify, note, full, projectFor, adminOf } = ctx;

  /** Approves or denies a pending request (the two operations' one body). */
  async function decide(actor: Actor, slug: string, id: string, decision: { approve: true; level: string } | { approve: false }) {
    const { project } = await adminOf(actor, slug, 'decide access requests');
    const request = await accounts.accessRequests.get(id);
    if (!request || request.project !== slug) throw new ManagementError(404, 'There is no such access request in this project.');
    if (request.status !== 'pending') throw new ManagementError(409, `This request was already ${request.status}.`);
    if (decision.approve && !isKeyLevel(decision.level)) throw new ManagementError(400, 'Choose VIEWER, EDITOR or ADMIN.', 'level');
    if (decision.approve && request.requester.type === 'user' && !(await accounts.users.get(request.requester.id))?.emailVerifiedAt)
      throw new ManagementError(
        409,
        `${request.requester.label} has not confirmed that address, so it cannot become a member; add it as a member instead to mail it an invitation.`,
      );
    const decided = await accounts.accessRequests
      .decide(id, decision.approve, decision.approve ? (decision.level as KeyLevel) : undefined, actor.label)
      .catch(async (err: unknown) => {
        // Another admin decided it since it was read above: the decision is theirs (DECIDE in @svc/accounts).
        if (!(err instanceof AccountError && err.code === 'conflict')) return full(err);
        const now = await accounts.accessRequests.get(id);
        throw new ManagementError(409, `This request was already ${now?.status ?? 'decided'}.`);
      });
    notify(notices.accessDecided(decided, decision.approve ? decision.level : null));
    await note(
      actor,
      project.workspace,
      decision.approve ? 'access_request.approved' : 'access_request.denied',
      `access_request:${id} (${request.requester.label})`,
      {
        project: slug,
        asked: request.requested_level,
        ...(decision.approve ? { granted: decision.level } : {}),
      },
    );
  }

  return {
    async listAccessRequests(actor, slug, input) {
      const { cursor, limit } = parsePageQuery(input);
      await adminOf(actor, slug, 'see access requests');
      const page = await accounts.accessRequests.page(slug, cursor, limit);
      return {
        canDecide: true,
        next: page.next,
        requests: page.requests.map((r) => ({
          id: r.id,
          requester: r.requester.label,
          level: r.requested_level,
          reason: r.reason,
          createdAt: Date.parse(r.created_at),
          status: r.status,
          grantedLevel: r.granted_level,
          decidedBy: r.decided_by,
          decidedAt: r.decided_at ? Date.parse(r.decided_at) : null,
        })),
      };
    },

    async approveAccessRequest(actor, slug, id, input) {
      await decide(actor, slug, id, { approve: true, level: input.level });
      return { id, status: 'approved', level: input.level as KeyLevel };
    },

    async denyAccessRequest(actor, slug, id) {
      await decide(actor, slug, id, { approve: false });
      return { id, status: 'denied' };
    },

    async pendingRequests(actor, slug) {
      const { role } = await projectFor(actor, slug);
      return role === 'ADMIN' ? accounts.accessRequests.pendingCount(slug) : 0;
    },

    async accessRequested(request) {
      const mailed = request.notifyAdmins && deps.mailer?.enabled === true;
      if (mailed) notify(notices.accessRequested(request));
      return { mailed };
    },
  };
}
