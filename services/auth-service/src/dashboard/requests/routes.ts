/** Project > Access requests routes (docs/dashboard.md): the list, and a decision on one. */
import type { Router } from 'express';
import { render } from '../../ui/html.ts';
import { formOf } from '../form.ts';
import { back, param, str, type Kit } from '../kit.ts';
import { REQUEST_FORMS } from './forms.ts';
import { requestsPage } from './view.ts';

export function requestsRoutes(router: Router, { deps, now, page$, frame }: Kit): void {
  router.get(
    '/projects/:slug/requests',
    page$(async (req, res, actor) => {
      const f = await frame(req, res, actor, 'requests', { project: param(req, 'slug') });
      // One page, newest asked first; "Older requests" carries its cursor (docs/management.md "Lists and pages").
      const page = await deps.management.listAccessRequests(actor, param(req, 'slug'), { cursor: str(req.query['cursor']) });
      render(res, requestsPage(f, { ...page, pending: await deps.management.pendingRequests(actor, param(req, 'slug')), now: now() }));
    }),
  );
  for (const decision of ['approve', 'deny'] as const) {
    router.post(
      REQUEST_FORMS[decision].path,
      page$(async (req, res, actor) => {
        const slug = param(req, 'slug');
        const id = param(req, 'id');
        if (decision === 'approve')
          await deps.management.approveAccessRequest(actor, slug, id, { level: formOf(req, REQUEST_FORMS.approve).level });
        else await deps.management.denyAccessRequest(actor, slug, id);
        back(
          res,
          `/dashboard/projects/${encodeURIComponent(slug)}/requests`,
          decision === 'approve' ? 'request-approved' : 'request-denied',
        );
      }),
    );
  }
}
