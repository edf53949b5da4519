/** Project > Members routes (docs/dashboard.md): add (or invite), cancel an invitation, change a role, remove (confirmed first). */
import type { Request, Response, Router } from 'express';
import { requireRecentFactor } from '../../factors/step-up.ts';
import { render } from '../../pages/html.ts';
import { ManagementError, type Actor } from '@svc/management';
import { back, confirmed, field, param, type Kit } from '../kit.ts';
import { confirmPage } from '../parts.ts';
import { membersPage, removeMemberEnds } from './view.ts';

const membersPath = (slug: string) => `/dashboard/projects/${encodeURIComponent(slug)}/members`;

export function membersRoutes(router: Router, { deps, page$, frame, submit }: Kit): void {
  router.get(
    '/projects/:slug/members',
    page$(async (req, res, actor) => {
      const f = await frame(req, res, actor, 'members', { project: param(req, 'slug') });
      render(res, membersPage(f, await deps.management.members(actor, param(req, 'slug'))));
    }),
  );
  router.post(
    '/projects/:slug/members',
    page$(async (req, res, actor) => {
      const slug = param(req, 'slug');
      const email = field(req, 'email').trim();
      await submit(
        req,
        res,
        actor,
        { section: 'members', at: { project: slug } },
        async () => {
          const { invited } = await deps.management.addMember(actor, slug, { email, role: field(req, 'role') });
          back(res, membersPath(slug), invited ? 'member-invited' : 'member-added');
        },
        async (f, err) => membersPage(f, { ...(await deps.management.members(actor, slug)), error: err.message, email }),
      );
    }),
  );
  router.post(
    '/projects/:slug/invitations/:id/cancel',
    page$(async (req, res, actor) => {
      await deps.management.cancelInvitation(actor, param(req, 'slug'), param(req, 'id'));
      back(res, membersPath(param(req, 'slug')), 'invitation-cancelled');
    }),
  );
  router.post(
    '/projects/:slug/members/:user/role',
    requireRecentFactor(
      { redis: deps.redis, accounts: deps.accounts, userOf: (req) => deps.web.userOf(req) },
      { backTo: (req) => `/dashboard/projects/${param(req, 'slug')}/members` },
    ),
    page$(async (req, res, actor) => {
      await deps.management.setRole(actor, param(req, 'slug'), param(req, 'user'), field(req, 'role'));
      back(res, membersPath(param(req, 'slug')), 'role-changed');
    }),
  );
  /** The confirmation page (its GET, or a POST without `confirm=yes`) says what the removal ends (docs/dashboard.md "Confirmation"). */
  async function confirmRemoval(req: Request, res: Response, actor: Actor): Promise<void> {
    const slug = param(req, 'slug');
    const member = (await deps.management.members(actor, slug)).members.find((m) => m.userId === param(req, 'user'));
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
    '/projects/:slug/members/:user/remove',
    page$(async (req, res, actor) => {
      if (!confirmed(req)) return confirmRemoval(req, res, actor);
      await deps.management.removeMember(actor, param(req, 'slug'), param(req, 'user'));
      back(res, membersPath(param(req, 'slug')), 'member-removed');
    }),
  );
}
