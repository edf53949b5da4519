/**
 * Every operation of the management API (docs/management.md "REST"), by operation id. The gateway
 * routes, validates and documents each from this table; the typed client calls them by id.
 */
import { approveApproval, denyApproval, listApprovals } from './approvals.ts';
import { approveAccessRequest, denyAccessRequest, listAccessRequests, myAccessRequests, requestAccess } from './access-requests.ts';
import { createKey, disableKey, enableKey, listKeys, revokeKey, rollKey, setKeyAllowedIps, setKeyLimit, setKeyNote } from './keys.ts';
import { factorPolicy, resetFactors, setFactorPolicy } from './factors.ts';
import { myApps, revokeApp, revokePersonalKey } from './me.ts';
import { cancelInvitation, listMembers, putMember, removeMember } from './members.ts';
import {
  createServiceAccount,
  getServiceAccountClient,
  grantServiceAccount,
  listServiceAccounts,
  removeServiceAccountClientKeys,
  revokeServiceAccount,
  rotateServiceAccount,
  setServiceAccountClientKeys,
} from './service-accounts.ts';
import { claimSsoDomain, configureSsoProvider, releaseSsoDomain, setSsoPolicy, ssoSettings, verifySsoDomain } from './sso.ts';
import { createScimToken, revokeScimToken, scimSettings } from './scim.ts';
import { addTrustedIssuer, listTrustedIssuers, removeTrustedIssuer } from './trusted-issuers.ts';
import { addWorkloadIssuer, listWorkloadIssuers, removeWorkloadIssuer } from './workload-issuers.ts';
import { approveClient, clientPolicy, denyClient, listClientApprovals, setClientPolicy } from './client-policy.ts';
import {
  createWebhook,
  deleteWebhook,
  listWebhookDeliveries,
  listWebhooks,
  rotateWebhookSecret,
  testWebhook,
  updateWebhook,
} from './webhooks.ts';
import { addUpstream, getUpstream, listUpstreams, refreshUpstream, removeUpstream, setUpstreamTool, updateUpstream } from './upstreams.ts';
import { audit, createProject, usage } from './workspaces.ts';
import { listBuiltinTools, setBuiltinTool } from './builtin-tools.ts';

export const MANAGEMENT_OPERATIONS = {
  listKeys,
  createKey,
  setKeyLimit,
  disableKey,
  enableKey,
  setKeyNote,
  setKeyAllowedIps,
  revokeKey,
  rollKey,
  listAccessRequests,
  requestAccess,
  approveAccessRequest,
  denyAccessRequest,
  listApprovals,
  approveApproval,
  denyApproval,
  listMembers,
  putMember,
  cancelInvitation,
  removeMember,
  createProject,
  listServiceAccounts,
  createServiceAccount,
  grantServiceAccount,
  rotateServiceAccount,
  revokeServiceAccount,
  getServiceAccountClient,
  setServiceAccountClientKeys,
  removeServiceAccountClientKeys,
  listTrustedIssuers,
  addTrustedIssuer,
  removeTrustedIssuer,
  listWorkloadIssuers,
  addWorkloadIssuer,
  removeWorkloadIssuer,
  clientPolicy,
  setClientPolicy,
  listClientApprovals,
  approveClient,
  denyClient,
  listWebhooks,
  createWebhook,
  updateWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  listWebhookDeliveries,
  testWebhook,
  listUpstreams,
  addUpstream,
  getUpstream,
  updateUpstream,
  refreshUpstream,
  setUpstreamTool,
  removeUpstream,
  listBuiltinTools,
  setBuiltinTool,
  myAccessRequests,
  myApps,
  revokeApp,
  revokePersonalKey,
  usage,
  audit,
  factorPolicy,
  setFactorPolicy,
  resetFactors,
  ssoSettings,
  configureSsoProvider,
  setSsoPolicy,
  claimSsoDomain,
  verifySsoDomain,
  releaseSsoDomain,
  scimSettings,
  createScimToken,
  revokeScimToken,
} as const;

/** The name of a management operation (its OpenAPI operationId). */
export type OperationId = keyof typeof MANAGEMENT_OPERATIONS;

/** The declaration of the operation `I`. */
export type OperationOf<I extends OperationId> = (typeof MANAGEMENT_OPERATIONS)[I];
