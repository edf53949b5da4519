/** The dashboard's entry, the project switcher and "New project" (docs/dashboard.md). */
import type { Router } from 'express';
import { ManagementError } from '@svc/management';
import { render } from '../../ui/html.ts';
import { formOf } from '../form.ts';
import { back, field, keysPath, str, type Kit } from '../kit.ts';
import { PROJECT_FORMS } from './forms.ts';
import { newProjectPage } from './view.ts';

export function projectsRoutes(router: Router, { deps, page$, frame, submit, currentProject }: Kit): void {
  router.get(
    '/',
    page$(async (req, res, actor) => {
      // The project this browser last opened, else the first (kit.ts `currentProject`).
      const open = currentProject(req, await deps.management.projectsOf(actor));
      res.redirect(303, open ? keysPath(open.slug) : '/dashboard/projects/new');
    }),
  );
  router.get(
    '/switch',
    page$(async (req, res, actor) => {
      const workspace = str(req.query['workspace']);
      if (!workspace) return res.redirect(303, keysPath(str(req.query['project'])));
      // A workspace opens at the project last opened there, else its first the person reaches; an owned one without any, at its usage.
      const first = currentProject(req, await deps.management.projectsOf(actor), workspace);
      if (first) return res.redirect(303, keysPath(first.slug));
      if ((await deps.management.workspacesOf(actor)).includes(workspace))
        return res.redirect(303, `/dashboard/workspaces/${encodeURIComponent(workspace)}/usage`);
      throw new ManagementError(404, `There is no workspace ${workspace} you can open.`);
    }),
  );
  router.get(
    '/projects/new',
    page$(async (req, res, actor) => {
      const f = await frame(req, res, actor, 'new-project', {});
      render(res, newProjectPage(f, { workspaces: await deps.management.workspacesOf(actor) }));
    }),
  );
  router.post(
    PROJECT_FORMS.create.path,
    page$(async (req, res, actor) => {
      const name = field(req, 'name').trim();
      await submit(
        req,
        res,
        actor,
        { section: 'new-project', at: {} },
        async () => {
          const form = formOf(req, PROJECT_FORMS.create);
          const { slug } = await deps.management.createProject(actor, form.workspace, { name: form.name });
          back(res, keysPath(slug), 'project-created');
        },
        async (f, err) => newProjectPage(f, { workspaces: await deps.management.workspacesOf(actor), error: err.message, name }),
      );
    }),
  );
}
