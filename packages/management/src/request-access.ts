/**
 * Asking a project's admins for a level over the management API (docs/management.md "Access request
 * lifecycle"): the REST twin of the svc_request_access tool, so `svc request-access` needs no MCP
 * session. A person asks for themselves (any project, member or not); a project key for itself.
 */
import { AccountError, MAX_REASON_LENGTH, type Requester } from '@svc/accounts';
import { isKeyLevel, roleAtLeast, type Role } from '@svc/policy';
import { auditPartiesOf } from './audit-actor.ts';
import type { ManagementContext } from './context.ts';
import { ManagementError, type Actor, type RequestAccessOutcome } from './types.ts';

/** Asking a project's admins for access. */
export interface RequestAccessOperation {
  /** The actor asks the project's admins for `level` (a person for themselves, a key for itself). */
  requestAccess(actor: Actor, project: string, input: { level: string; reason: string }): Promise<RequestAccessOutcome>;
}

export function requestAccessOperation(ctx: ManagementContext): RequestAccessOperation {
  const { accounts, deps, notices, notify } = ctx;
  return {
    async requestAccess(actor, slug, input) {
      if (!isKeyLevel(input.level)) throw new ManagementError(400, 'Choose VIEWER, EDITOR or ADMIN.', 'level');
      if (!input.reason.trim()) throw new ManagementError(400, 'Say why you need it: the admins read the reason.', 'reason');
      if (input.reason.length > MAX_REASON_LENGTH)
        throw new ManagementError(400, `The reason is longer than ${MAX_REASON_LENGTH} characters.`, 'reason');
      if (actor.kind === 'operator') throw new ManagementError(403, 'svc-admin grants access directly (member set); it asks no one.');
      const project = await accounts.workspaces.getProject(slug);
      const own = actor.kind === 'person' ? (actor.onlyProject ?? slug) === slug : actor.project === slug;
      if (!project || !own) throw new ManagementError(404, `There is no project ${slug} you can ask for.`);
      let role: Role;
      let requester: Requester;
      if (actor.kind === 'person') {
        role = await accounts.workspaces.roleOf(actor.userId, project);
        requester = { type: 'user', id: actor.userId, label: actor.label };
      } else {
        role = actor.level;
        requester = { type: 'key', id: actor.keyId, label: actor.label };
      }
      const answer = { project: slug, level: input.level, current_level: role };
      if (roleAtLeast(role, input.level)) return { ...answer, id: null, status: 'unchanged', admins_emailed: false, updated: false };
      const request = await accounts.accessRequests
        .create(
          { project: slug, requester, requestedLevel: input.level, reason: input.reason },
          { source: actor.source, requestId: actor.requestId, agent: auditPartiesOf(actor).agent },
        )
        .catch((err: unknown) => {
          // Too many pending, a denial too recent, or a decision that just landed (docs/management.md).
          if (err instanceof AccountError && ['limit', 'cooldown', 'conflict'].includes(err.code))
            throw new ManagementError(409, err.message);
          throw err;
        });
      const mailed = request.notifyAdmins && deps.mailer?.enabled === true;
      if (mailed) notify(notices.accessRequested(request));
      return { ...answer, id: request.id, status: 'pending', admins_emailed: mailed, updated: request.updated };
    },
  };
}
