/** Workspace > Usage route (docs/dashboard.md). */
import type { Router } from 'express';
import { render } from '../../ui/html.ts';
import { param, type Kit } from '../kit.ts';
import { usagePage } from './view.ts';

export function usageRoutes(router: Router, { deps, page$, frame }: Kit): void {
  router.get(
    '/workspaces/:ws/usage',
    page$(async (req, res, actor) => {
      const f = await frame(req, res, actor, 'usage', { workspace: param(req, 'ws') });
      render(res, usagePage(f, await deps.management.usage(actor, param(req, 'ws'))));
    }),
  );
}
