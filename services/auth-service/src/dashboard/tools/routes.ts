/** Project > Tools routes (docs/approvals.md "The rule"): svc's own tools and the project's approval rule for each. */
import type { Router } from 'express';
import { render } from '../../ui/html.ts';
import { formOf } from '../form.ts';
import { back, param, type Kit } from '../kit.ts';
import { TOOL_FORMS } from './forms.ts';
import { toolsPage } from './view.ts';

export function toolsRoutes(router: Router, { deps, page$, frame }: Kit): void {
  router.get(
    '/projects/:slug/tools',
    page$(async (req, res, actor) => {
      const f = await frame(req, res, actor, 'tools', { project: param(req, 'slug') });
      render(res, toolsPage(f, (await deps.management.listBuiltinTools(actor, param(req, 'slug'))).tools));
    }),
  );
  router.post(
    TOOL_FORMS.approval.path,
    page$(async (req, res, actor) => {
      const slug = param(req, 'slug');
      await deps.management.setBuiltinTool(actor, slug, param(req, 'tool'), { approval: formOf(req, TOOL_FORMS.approval).approval });
      back(res, `/dashboard/projects/${encodeURIComponent(slug)}/tools`, 'tool-approval-saved');
    }),
  );
}
