/** Project > Members routes (docs/dashboard.md): add (or invite), revoke an invitation (confirmed first), change a role, remove (confirmed first). */
import type { Request, Response, Router } from 'express';
import { render } from '../../ui/html.ts';
import { ManagementError, type Actor } from '@svc/management';
import { formOf } from '../form.ts';
import { back, confirmed, field, param, type Kit } from '../kit.ts';
import { confirmPage } from '../parts.ts';
import { MEMBER_FORMS } from './forms.ts';
import { membersPage, removeMemberEnds, revokeInvitationEnds } from './view.ts';

const membersPath = (slug: string) => `/dashboard/projects/${encodeURIComponent(slug)}/members`;
const invitationsPath = (slug: string) => `/dashboard/projects/${encodeURIComponent(slug)}/invitations`;

export function membersRoutes(router: Router, { deps, page$, frame, submit }: Kit): void {
  router.get(
    '/projects/:slug/members',
    page$(async (req, res, actor) => {
      const f = await frame(req, res, actor, 'members', { project: param(req, 'slug') });
      render(res, membersPage(f, await deps.management.listMembers(actor, param(req, 'slug'))));
    }),
  );
  router.post(
    MEMBER_FORMS.add.path,
    page$(async (req, res, actor) => {
      const slug = param(req, 'slug');
      const email = field(req, 'email').trim();
      await submit(
        req,
        res,
        actor,
        { section: 'members', at: { project: slug } },
        async () => {
          const form = formOf(req, MEMBER_FORMS.add);
          const { invited } = await deps.management.addMember(actor, slug, { email: form.email.trim(), role: form.role });
          back(res, membersPath(slug), invited ? 'member-invited' : 'member-added');
        },
        async (f, err) => membersPage(f, { ...(await deps.management.listMembers(actor, slug)), error: err.message, email }),
      );
    }),
  );
  /** Revoking an invitation asks first too, saying what it ends (docs/dashboard.md "Confirmation"). */
  async function confirmRevoke(req: Request, res: Response, actor: Actor): Promise<void> {
    const slug = param(req, 'slug');
    const invitation = (await deps.management.listMembers(actor, slug)).invitations.find((i) => i.id === param(req, 'id'));
    if (!invitation) throw new ManagementError(404, 'There is no such pending invitation in this project.');
    const f = await frame(req, res, actor, 'members', { project: slug });
    render(
      res,
      confirmPage(f, {
        title: 'Revoke invitation',
        ends: revokeInvitationEnds(invitation, slug),
        action: `${invitationsPath(slug)}/${encodeURIComponent(invitation.id)}/cancel`,
        button: 'Revoke invitation',
        cancel: membersPath(slug),
      }),
    );
  }
  router.get('/projects/:slug/invitations/:id/cancel', page$(confirmRevoke));
  router.post(
    MEMBER_FORMS.cancelInvitation.path,
    page$(async (req, res, actor) => {
      if (!confirmed(req, MEMBER_FORMS.cancelInvitation)) return confirmRevoke(req, res, actor);
      await deps.management.cancelInvitation(actor, param(req, 'slug'), param(req, 'id'));
      back(res, membersPath(param(req, 'slug')), 'invitation-cancelled');
    }),
  );
  router.post(
    MEMBER_FORMS.role.path,
    page$(async (req, res, actor) => {
      await deps.management.setRole(actor, param(req, 'slug'), param(req, 'user'), formOf(req, MEMBER_FORMS.role).role);
      back(res, membersPath(param(req, 'slug')), 'role-changed');
    }),
  );
  /** The confirmation page (its GET, or a POST without `confirm=yes`) says what the removal ends (docs/dashboard.md "Confirmation"). */
  async function confirmRemoval(req: Request, res: Response, actor: Actor): Promise<void> {
    const slug = param(req, 'slug');
    const member = (await deps.management.listMembers(actor, slug)).members.find((m) => m.userId === param(req, 'user'));
    if (!member) throw new ManagementError(404, 'There is no such member of this project.');
    const f = await frame(req, res, actor, 'members', { project: slug });
    const action = `${membersPath(slug)}/${encodeURIComponent(member.userId)}/remove`;
    render(
      res,
      confirmPage(f, {
        title: 'Remove member',
        ends: removeMemberEnds(member, slug),
        action,
        button: 'Remove member',
        cancel: membersPath(slug),
      }),
    );
  }
  router.get('/projects/:slug/members/:user/remove', page$(confirmRemoval));
  router.post(
    MEMBER_FORMS.remove.path,
    page$(async (req, res, actor) => {
      if (!confirmed(req, MEMBER_FORMS.remove)) return confirmRemoval(req, res, actor);
      await deps.management.removeMember(actor, param(req, 'slug'), param(req, 'user'));
      back(res, membersPath(param(req, 'slug')), 'member-removed');
    }),
  );
}
