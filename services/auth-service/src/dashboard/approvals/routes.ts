/** Project > Approvals routes (docs/approvals.md): the calls held, and a decision on one. */
import type { Router } from 'express';
import { render } from '../../ui/html.ts';
import { formOf } from '../form.ts';
import { back, param, type Kit } from '../kit.ts';
import { APPROVAL_FORMS } from './forms.ts';
import { approvalsPage } from './view.ts';

export function approvalsRoutes(router: Router, { deps, now, page$, frame }: Kit): void {
  router.get(
    '/projects/:slug/approvals',
    page$(async (req, res, actor) => {
      const f = await frame(req, res, actor, 'approvals', { project: param(req, 'slug') });
      render(res, approvalsPage(f, { approvals: await deps.management.approvals(actor, param(req, 'slug')), now: now() }));
    }),
  );
  for (const decision of ['approve', 'deny'] as const) {
    router.post(
      APPROVAL_FORMS[decision].path,
      page$(async (req, res, actor) => {
        const slug = param(req, 'slug');
        await deps.management.decideApproval(
          actor,
          slug,
          param(req, 'id'),
          // The hash of the call the page showed: an approval is of that call and no other (docs/approvals.md).
          decision === 'approve' ? { approve: true, callHash: formOf(req, APPROVAL_FORMS.approve).call_hash } : { approve: false },
        );
        back(
          res,
          `/dashboard/projects/${encodeURIComponent(slug)}/approvals`,
          decision === 'approve' ? 'approval-approved' : 'approval-denied',
        );
      }),
    );
  }
}
