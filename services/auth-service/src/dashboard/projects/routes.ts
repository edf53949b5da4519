/** The dashboard's entry, the project switcher and "New project" (docs/dashboard.md). */
import type { Router } from 'express';
import { ManagementError } from '@svc/management';
import { render } from '../../ui/html.ts';
import { formOf } from '../form.ts';
import { back, field, keysPath, str, type Kit } from '../kit.ts';
import { PROJECT_FORMS } from './forms.ts';
import { newProjectPage } from './view.ts';

export function projectsRoutes(router: Router, { deps, page$, frame, submit }: Kit): void {
  router.get(
    '/',
    page$(async (req, res, actor) => {
      const projects = await deps.management.projectsOf(actor);
      res.redirect(303, projects[0] ? keysPath(projects[0].slug) : '/dashboard/projects/new');
    }),
  );
  router.get(
    '/switch',
    page$(async (req, res, actor) => {
      const workspace = str(req.query['workspace']);
      if (!workspace) return res.redirect(303, keysPath(str(req.query['project'])));
      // A workspace opens at its first project the person reaches; an owned one without any, at its usage.
      const first = (await deps.management.projectsOf(actor)).find((p) => p.workspace === workspace);
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
          const { slug } = await deps.management.createProject(actor, { name: form.name.trim(), workspace: form.workspace });
          back(res, keysPath(slug), 'project-created');
        },
        async (f, err) => newProjectPage(f, { workspaces: await deps.management.workspacesOf(actor), error: err.message, name }),
      );
    }),
  );
}
