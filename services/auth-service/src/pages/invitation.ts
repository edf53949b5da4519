/**
 * GET/POST /invitation (docs/management.md "Invitations"): the link mailed to an invited address.
 * Opening it changes nothing (mail scanners open links); the signed-in person accepts with a
 * button, and only an account whose confirmed address is the invited one becomes a member.
 */
import type { Request, Response } from 'express';
import { AccountError, AUDIT_AGENTS, type InvitationRefusal } from '@svc/accounts';
import { csrfField } from '../http/web-session.ts';
import { html, render, type SafeHtml } from '../ui/html.ts';
import { page } from '../ui/layout.ts';
import type { PageDeps } from './sign-in.ts';
import type { PageRefusal } from '@svc/errors';

const tokenOf = (v: unknown) => (typeof v === 'string' ? v.slice(0, 100) : '');

const REFUSALS: Record<InvitationRefusal, (email: string) => string> = {
  unknown: () => 'This invitation has expired, was cancelled or was already accepted. Ask the project admin to invite you again.',
  other_address: (email) =>
    `This invitation is for another address than ${email}. Sign in with the invited address (or create an account with it) and open the link again.`,
  unconfirmed: (email) =>
    `Confirm that ${email} is your address first: open the link we mailed to it (or send a new one from your account page), then open this invitation again.`,
};

/** Why an invitation was not accepted, and the way to the account page. */
export function invitationRefusedPage(message: string): SafeHtml {
  return page('Invitation', html`<p class="error" role="alert">${message}</p><nav><a href="/dashboard/account">Your account</a></nav>`);
}

/** The invitation, and the button that accepts it. */
export function joinPage(csrf: string, token: string, invitation: { project: string; role: string }): SafeHtml {
  return page(
    'Join a project',
    html`<p>You are invited to the project <strong>${invitation.project}</strong> as <strong>${invitation.role}</strong>.</p>
<form method="post" action="/invitation">${csrfField(csrf)}<input type="hidden" name="token" value="${token}">
<button type="submit">Accept the invitation</button></form>`,
  );
}

/** After accepting: the role and the project. */
export function joinedPage(invitation: { project: string; role: string }): SafeHtml {
  return page(
    'Invitation accepted',
    html`<p role="status">You are now ${invitation.role} on <strong>${invitation.project}</strong>.</p><nav><a href="/dashboard">Open the dashboard</a></nav>`,
  );
}

export function invitationPages(deps: PageDeps) {
  const refused = (res: Response, refusal: PageRefusal, message: string): void =>
    void render(res, invitationRefusedPage(message), { refusal });

  return {
    async page(req: Request, res: Response): Promise<void> {
      const token = tokenOf(req.query['token']);
      const invitation = await deps.accounts.invitations.ofToken(token);
      if (!invitation) return refused(res, 'link_expired', REFUSALS.unknown(''));
      const userId = await deps.web.userOf(req);
      if (!userId) return void res.redirect(303, `/signin?return=${encodeURIComponent(`/invitation?token=${token}`)}`);
      render(res, joinPage(deps.web.csrfToken(req, res), token, invitation));
    },

    async accept(req: Request, res: Response): Promise<void> {
      const token = tokenOf((req.body as Record<string, unknown> | undefined)?.['token']);
      const userId = await deps.web.userOf(req);
      const user = userId ? await deps.accounts.users.get(userId) : null;
      if (!user || !deps.web.csrfValid(req))
        return refused(res, 'form_expired', 'The form expired or you were signed out. Open the link from the email again.');
      const outcome = await deps.accounts.invitations.accept(token, user).catch((err: unknown) => {
        // The project holds its most members (docs/management.md "Collection limits").
        if (err instanceof AccountError && err.code === 'limit') return { full: err.message };
        throw err;
      });
      if ('full' in outcome) return refused(res, 'conflict', outcome.full);
      if ('refused' in outcome)
        return refused(res, outcome.refused === 'unknown' ? 'link_expired' : 'forbidden', REFUSALS[outcome.refused](user.email));
      const { invitation } = outcome;
      const workspace = (await deps.accounts.workspaces.getProject(invitation.project))?.workspace;
      if (workspace)
        await deps.accounts.audit.record({
          workspace,
          actor: user.email,
          action: 'member.invitation_accepted',
          target: `user:${user.email}`,
          source: req.ip ?? '',
          requestId: '',
          detail: { project: invitation.project, role: invitation.role, invited_by: invitation.invitedBy },
          principal: { type: 'user', id: user.id, label: user.email },
          agent: AUDIT_AGENTS.web,
        });
      render(res, joinedPage(invitation));
    },
  };
}
