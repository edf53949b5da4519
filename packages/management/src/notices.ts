/**
 * Email about access requests (docs/management.md "Notices"): the project's admins hear of a new
 * request, with where to decide it; a person who asked hears the decision. Sent through @svc/mail;
 * sent in the background: a failure is logged and never undoes or delays the request or the decision.
 */
import type { AccessRequest, Accounts } from '@svc/accounts';
import type { Mailer } from '@svc/mail';

export interface Notices {
  accessRequested(request: AccessRequest): Promise<void>;
  accessDecided(request: AccessRequest, granted: string | null): Promise<void>;
}

export function createNotices(accounts: Accounts, mailer: Mailer | undefined, authUrl: string): Notices {
  /** The workspace owner and the project's ADMIN members: who can decide. */
  async function adminsOf(project: string): Promise<string[]> {
    const p = await accounts.workspaces.getProject(project);
    if (!p) return [];
    const ids = new Set<string>();
    const owner = (await accounts.workspaces.get(p.workspace))?.owner;
    if (owner) ids.add(owner);
    for (const m of await accounts.workspaces.members(project)) if (m.role === 'ADMIN') ids.add(m.userId);
    const emails = await Promise.all([...ids].map(async (id) => (await accounts.users.get(id))?.email));
    return emails.filter((e): e is string => Boolean(e));
  }

  return {
    async accessRequested(r) {
      if (!mailer?.enabled) return;
      const link = `${authUrl}/dashboard/projects/${encodeURIComponent(r.project)}/requests`;
      for (const to of await adminsOf(r.project)) {
        await mailer.send({
          to,
          subject: `${r.requester.label} asks for ${r.requested_level} on ${r.project}`,
          text: `${r.requester.label} asks for ${r.requested_level} access to project ${r.project}.\n\nReason: ${r.reason || '(none given)'}\n\nApprove at a level of your choice, or deny, here:\n${link}\nor from a terminal: svc requests approve ${r.id} --project ${r.project} --level ${r.requested_level}\n`,
        });
      }
    },
    async accessDecided(r, granted) {
      if (!mailer?.enabled || r.requester.type !== 'user') return;
      const user = await accounts.users.get(r.requester.id);
      if (!user) return;
      await mailer.send({
        to: user.email,
        subject: granted ? `You have ${granted} access to ${r.project}` : `Your access request for ${r.project} was denied`,
        text: granted
          ? `Your request for access to project ${r.project} was approved at ${granted}. Connect your client again (or run svc login) to use it.\n`
          : `Your request for ${r.requested_level} access to project ${r.project} was denied. Ask the project's admins if you think this is a mistake.\n`,
      });
    },
  };
}
