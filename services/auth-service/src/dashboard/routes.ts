/**
 * The dashboard's routes under /dashboard (docs/dashboard.md), one module per section: every page
 * needs a signed-in session (else the sign-in page, coming back after), every form a valid CSRF
 * token (kit.ts); each request reads as: who is asking, what they asked, the management layer's
 * answer, the page.
 */
import express, { type Router } from 'express';
import { render } from '../pages/html.ts';
import { notFoundPage } from '../pages/layout.ts';
import { accountRoutes } from './account/routes.ts';
import { auditRoutes } from './audit/routes.ts';
import { DASHBOARD_CSP } from './frame.ts';
import { keysRoutes } from './keys/routes.ts';
import { dashboardKit, type DashboardDeps } from './kit.ts';
import { membersRoutes } from './members/routes.ts';
import { projectsRoutes } from './projects/routes.ts';
import { requestsRoutes } from './requests/routes.ts';
import { clientKeysRoutes } from './service-accounts/client-keys-routes.ts';
import { serviceAccountsRoutes } from './service-accounts/routes.ts';
import { usageRoutes } from './usage/routes.ts';

export type { DashboardDeps } from './kit.ts';

export function dashboardRoutes(deps: DashboardDeps): Router {
  const router = express.Router();
  router.use((_req, res, next) => {
    res.set({ 'Content-Security-Policy': DASHBOARD_CSP, 'Cache-Control': 'no-store' });
    next();
  });
  router.post('*path', express.urlencoded({ extended: false, limit: '16kb' }));
  const kit = dashboardKit(deps);
  for (const section of [
    projectsRoutes,
    keysRoutes,
    requestsRoutes,
    membersRoutes,
    serviceAccountsRoutes,
    clientKeysRoutes,
    usageRoutes,
    auditRoutes,
    accountRoutes,
  ]) {
    section(router, kit);
  }
  router.use((_req, res) => render(res, notFoundPage(), { status: 404 }));
  return router;
}
