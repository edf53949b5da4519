/**
 * The management API's routes (docs/management.md "REST"): one per operation of the contract,
 * each run by its handler (./management/*.ts, by resource); the gateway's one router
 * (src/routes.ts) matches them.
 */
import { ACCESS_REQUEST_ROUTES } from './management/access-requests.ts';
import { APPROVAL_ROUTES } from './management/approvals.ts';
import { BUILTIN_TOOL_ROUTES } from './management/builtin-tools.ts';
import type { ManagementRoute } from './management/handle.ts';
import { KEY_ROUTES } from './management/keys.ts';
import { MEMBER_ROUTES } from './management/members.ts';
import { SERVICE_ACCOUNT_ROUTES } from './management/service-accounts.ts';
import { SCIM_ROUTES } from './management/scim.ts';
import { SSO_ROUTES } from './management/sso.ts';
import { TRUSTED_ISSUER_ROUTES } from './management/trusted-issuers.ts';
import { CLIENT_POLICY_ROUTES } from './management/client-policy.ts';
import { UPSTREAM_ROUTES } from './management/upstreams.ts';
import { WEBHOOK_ROUTES } from './management/webhooks.ts';
import { WORKLOAD_ISSUER_ROUTES } from './management/workload-issuers.ts';
import { ME_ROUTES, WORKSPACE_ROUTES } from './management/workspaces.ts';

export type { ManagementRoute } from './management/handle.ts';

/** Every route; their OpenAPI entries come from the same declarations (management-openapi.ts). */
export const MANAGEMENT_ROUTES: readonly ManagementRoute[] = [
  ...KEY_ROUTES,
  ...ACCESS_REQUEST_ROUTES,
  ...APPROVAL_ROUTES,
  ...MEMBER_ROUTES,
  ...SERVICE_ACCOUNT_ROUTES,
  ...TRUSTED_ISSUER_ROUTES,
  ...WORKLOAD_ISSUER_ROUTES,
  ...CLIENT_POLICY_ROUTES,
  ...WEBHOOK_ROUTES,
  ...UPSTREAM_ROUTES,
  ...BUILTIN_TOOL_ROUTES,
  ...WORKSPACE_ROUTES,
  ...SSO_ROUTES,
  ...SCIM_ROUTES,
  ...ME_ROUTES,
];
