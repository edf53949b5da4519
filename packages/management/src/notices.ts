/**
 * Email about access requests and expiring keys (docs/management.md "Notices"): the project's
 * admins hear of a new request, with where to decide it, and of a key that ends within a week; a
 * person who asked hears the decision. Sent through @svc/mail;
 * sent in the background: a failure is logged and never undoes or delays the request or the decision.
 */
import type { AccessRequest, Accounts, ApiKeyRecord, Invitation } from '@svc/accounts';
import type { Mailer } from '@svc/mail';

export interface Notices {
  accessRequested(request: AccessRequest): Promise<void>;
  accessDecided(request: AccessRequest, granted: string | null): Promise<void>;
  /** A project key ends soon: its project's admins hear when, and how to replace it. */
  keyExpiring(key: ApiKeyRecord): Promise<void>;
  /** The invited address gets its single-use link (docs/management.md "Invitations"). */
  invited(invitation: Invitation, link: string): Promise<void>;
}

/** A requester's words on one line: controls and line breaks become spaces. */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- removing control characters is what it is for
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/gu, ' ').trim();
}

/**
 * A requester's reason quoted as plain text (docs/management.md "Access request lifecycle"): each
 * line after "> ", and anything a mail reader would make a link (a URL, a www. or e-mail address)
 * replaced, so svc's own mail never carries a link a stranger chose.
 */
function quoted(reason: string): string {
  const text = reason.trim() || '(none given)';
  const unlinked = text
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S*/giu, '[link removed]')
    .replace(/\bwww\.\S+/giu, '[link removed]')
    .replace(/\S+@\S+\.\S+/gu, '[address removed]')
    .replace(/\b[a-z0-9-]+(\.[a-z0-9-]+)*\.(com|net|org|io|dev|app|co|me|info|xyz|ru|cn)\b\S*/giu, '[link removed]');
  return unlinked
    .split('\n')
    .map((line) => `> ${oneLine(line)}`)
    .join('\n');
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
      const who = oneLine(r.requester.label);
      for (const to of await adminsOf(r.project)) {
        await mailer.send({
          to,
          subject: `${who} asks for ${r.requested_level} on ${r.project}`,
          text: `${who} asks for ${r.requested_level} access to project ${r.project}.\n\nTheir reason, as they wrote it (links removed):\n${quoted(r.reason)}\n\nApprove at a level of your choice, or deny, here:\n${link}\nor from a terminal: svc requests approve ${r.id} --project ${r.project} --level ${r.requested_level}\n`,
        });
      }
    },
    async keyExpiring(key) {
      if (!mailer?.enabled || key.expiresAt === null) return;
      const when = new Date(key.expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z');
      const link = `${authUrl}/dashboard/projects/${encodeURIComponent(key.project)}/keys`;
      for (const to of await adminsOf(key.project)) {
        await mailer.send({
          to,
          subject: `API key "${key.name}" of ${key.project} expires ${when.slice(0, 10)}`,
          text: `The API key "${key.name}" (${key.prefix}, ${key.level}) of project ${key.project} stops working at ${when}.\n\nTo replace it without a gap, roll it (a new key now, the old one kept for an overlap you choose):\n${link}\nor from a terminal: svc keys roll ${key.id} --project ${key.project} --overlap 24h\n\nIf nothing uses it any more, let it expire.\n`,
        });
      }
    },
    async invited(inv, link) {
      if (!mailer?.enabled) return;
      const until = new Date(inv.expiresAt).toISOString().slice(0, 10);
      await mailer.send({
        to: inv.email,
        subject: `You are invited to ${inv.project} on svc`,
        text: `${inv.invitedBy} invited ${inv.email} to project ${inv.project} as ${inv.role}.\n\nTo accept, sign in (or create an account) with this address, confirm it, and open this link (it works once, until ${until}):\n${link}\n\nIf you do not expect this, ignore this message.\n`,
      });
    },
    async accessDecided(r, granted) {
      if (!mailer?.enabled || r.requester.type !== 'user') return;
      const user = await accounts.users.get(r.requester.id);
      // Mail goes only to a proven address (docs/auth-service.md "Proven addresses"); an unproven
      // one sees the outcome in `svc requests mine` and on the account page.
      if (!user?.emailVerifiedAt) return;
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
