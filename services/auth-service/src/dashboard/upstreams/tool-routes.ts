/**
 * An upstream tool's page and forms in Project > Upstream servers (docs/upstream-servers.md
 * "Policy rows"): its level, its on/off switch, the acceptance of the server's change and which
 * calls wait for an admin's approval (docs/approvals.md), each the
 * management layer's setUpstreamTool, which declares step-up (it can open a tool to more people);
 * the step-up comes back to the page the form was on.
 */
import type { Request, Response, Router } from 'express';
import { ManagementError, type Actor } from '@svc/management';
import type { ToolChange } from '@svc/upstreams';
import { render } from '../../ui/html.ts';
import { formOf, type DashboardForm } from '../form.ts';
import { back, param, type Done, type Kit } from '../kit.ts';
import { UPSTREAM_FORMS } from './forms.ts';
import { steppingUpTo } from './routes.ts';
import { toolPage } from './server-view.ts';
import { toolPath, upstreamPath } from './view.ts';

export function upstreamToolRoutes(router: Router, { deps, page$, frame }: Kit): void {
  const m = deps.management;

  router.get(
    '/projects/:slug/upstreams/:name/tools/:tool',
    page$(async (req, res, actor) => {
      const slug = param(req, 'slug');
      const view = await m.getUpstream(actor, slug, param(req, 'name'));
      const tool = view.tools.find((t) => t.name === param(req, 'tool'));
      if (!tool) throw new ManagementError(404, `The upstream server ${view.upstream.name} has no tool named ${param(req, 'tool')}.`);
      const f = await frame(req, res, actor, 'upstreams', { project: slug });
      render(res, toolPage(f, view, tool));
    }),
  );

  /** A form that changes the tool's row: read, changed through the layer (stepping up back to `from`), then the server's page. */
  const change = <F extends DashboardForm>(form: F, what: (req: Request) => { change: ToolChange; done: Done }, from: 'server' | 'tool') =>
    router.post(
      form.path,
      page$(async (req: Request, res: Response, actor: Actor) => {
        const [slug, name, tool] = [param(req, 'slug'), param(req, 'name'), param(req, 'tool')];
        const { change: row, done } = what(req);
        const page = from === 'tool' ? toolPath(slug, name, tool) : upstreamPath(slug, name);
        await steppingUpTo(page, () => m.setUpstreamTool(actor, slug, name, tool, row));
        back(res, upstreamPath(slug, name), done);
      }),
    );

  change(
    UPSTREAM_FORMS.level,
    (req) => ({ change: { level: formOf(req, UPSTREAM_FORMS.level).level }, done: 'upstream-level-saved' }),
    'server',
  );
  change(
    UPSTREAM_FORMS.enabled,
    (req) => {
      const on = formOf(req, UPSTREAM_FORMS.enabled).enabled === 'on';
      return { change: { enabled: on }, done: on ? 'upstream-tool-on' : 'upstream-tool-off' };
    },
    'server',
  );
  change(
    UPSTREAM_FORMS.approval,
    (req) => ({ change: { approval: formOf(req, UPSTREAM_FORMS.approval).approval }, done: 'upstream-approval-saved' }),
    'tool',
  );
  change(
    UPSTREAM_FORMS.cost,
    (req) => ({ change: { cost: Number(formOf(req, UPSTREAM_FORMS.cost).cost) }, done: 'upstream-cost-saved' }),
    'tool',
  );
  change(
    UPSTREAM_FORMS.accept,
    (req) => {
      formOf(req, UPSTREAM_FORMS.accept);
      return { change: { acceptChange: true }, done: 'upstream-change-accepted' };
    },
    'tool',
  );
}
