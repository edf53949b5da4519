/**
 * The dashboard's routes under /dashboard (docs/dashboard.md), one module per section: every page
 * needs a signed-in session (else the sign-in page, coming back after), every form a valid CSRF
 * token (kit.ts); each request reads as: who is asking, what they asked, the management layer's
 * answer, the page.
 */
import express, { type Router } from 'express';
import { render } from '../ui/html.ts';
import { notFoundPage } from '../ui/layout.ts';
import { SAML_FORM_BODY_LIMIT, SSO_FORMS } from './sso/forms.ts';
import { ACCOUNT_FORMS } from './account/forms.ts';
import { accountRoutes } from './account/routes.ts';
import { auditRoutes } from './audit/routes.ts';
import { DASHBOARD_CSP } from './frame.ts';
import type { DashboardForm } from './form.ts';
import { KEY_FORMS } from './keys/forms.ts';
import { keysRoutes } from './keys/routes.ts';
import { dashboardKit, type DashboardDeps } from './kit.ts';
import { MEMBER_FORMS } from './members/forms.ts';
import { membersRoutes } from './members/routes.ts';
import { PROJECT_FORMS } from './projects/forms.ts';
import { projectsRoutes } from './projects/routes.ts';
import { APPROVAL_FORMS } from './approvals/forms.ts';
import { approvalsRoutes } from './approvals/routes.ts';
import { REQUEST_FORMS } from './requests/forms.ts';
import { requestsRoutes } from './requests/routes.ts';
import { BOT_FORMS } from './service-accounts/forms.ts';
import { CLIENT_KEY_FORMS, clientKeysRoutes } from './service-accounts/client-keys-routes.ts';
import { serviceAccountsRoutes } from './service-accounts/routes.ts';
import { SCIM_FORMS } from './scim/forms.ts';
import { scimRoutes } from './scim/routes.ts';
import { ssoRoutes } from './sso/routes.ts';
import { usageRoutes } from './usage/routes.ts';
import { WEBHOOK_FORMS } from './webhooks/forms.ts';
import { webhooksRoutes } from './webhooks/routes.ts';
import { CLIENT_FORMS } from './clients/forms.ts';
import { clientsRoutes } from './clients/routes.ts';
import { UPSTREAM_FORMS } from './upstreams/forms.ts';
import { upstreamsRoutes } from './upstreams/routes.ts';
import { upstreamToolRoutes } from './upstreams/tool-routes.ts';
import { TOOL_FORMS } from './tools/forms.ts';
import { toolsRoutes } from './tools/routes.ts';
import { WORKLOAD_ISSUER_FORMS, workloadIssuersRoutes } from './workload-issuers/routes.ts';

export type { DashboardDeps } from './kit.ts';

/** Every form of the dashboard (docs/dashboard.md "Forms"): each POST route is one of these. */
export const DASHBOARD_FORMS: readonly DashboardForm[] = [
  PROJECT_FORMS,
  KEY_FORMS,
  REQUEST_FORMS,
  APPROVAL_FORMS,
  MEMBER_FORMS,
  BOT_FORMS,
  ACCOUNT_FORMS,
  SSO_FORMS,
  SCIM_FORMS,
  CLIENT_KEY_FORMS,
  WORKLOAD_ISSUER_FORMS,
  WEBHOOK_FORMS,
  UPSTREAM_FORMS,
  TOOL_FORMS,
  CLIENT_FORMS,
].flatMap((forms) => Object.values(forms));

/** The largest form body read (express.urlencoded): past it, a 413 page and nothing changed. */
export const FORM_BODY_LIMIT = '16kb';

export function dashboardRoutes(deps: DashboardDeps): Router {
  const router = express.Router();
  router.use((_req, res, next) => {
    res.set({ 'Content-Security-Policy': DASHBOARD_CSP, 'Cache-Control': 'no-store' });
    next();
  });
  // The SAML IdP's metadata is larger than any other form (dashboard/sso/forms.ts SAML_FORM_BODY_LIMIT).
  router.post(SSO_FORMS.saml.path, express.urlencoded({ extended: false, limit: SAML_FORM_BODY_LIMIT }));
  router.post('*path', express.urlencoded({ extended: false, limit: FORM_BODY_LIMIT }));
  const kit = dashboardKit(deps);
  for (const section of [
    projectsRoutes,
    keysRoutes,
    requestsRoutes,
    approvalsRoutes,
    membersRoutes,
    upstreamsRoutes,
    upstreamToolRoutes,
    toolsRoutes,
    serviceAccountsRoutes,
    clientKeysRoutes,
    workloadIssuersRoutes,
    usageRoutes,
    auditRoutes,
    ssoRoutes,
    scimRoutes,
    webhooksRoutes,
    clientsRoutes,
    accountRoutes,
  ]) {
    section(router, kit);
  }
  router.use((_req, res) => render(res, notFoundPage(), { refusal: 'not_found' }));
  return router;
}
