/**
 * Every operation of the management API (docs/management.md "REST"), by operation id. The gateway
 * routes, validates and documents each from this table; the typed client calls them by id.
 */
import { approveAccessRequest, denyAccessRequest, listAccessRequests, myAccessRequests } from './access-requests.ts';
import { createKey, listKeys, revokeKey, rollKey, setKeyLimit } from './keys.ts';
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
import { addTrustedIssuer, listTrustedIssuers, removeTrustedIssuer } from './trusted-issuers.ts';
import { audit, createProject, usage } from './workspaces.ts';

export const MANAGEMENT_OPERATIONS = {
  listKeys,
  createKey,
  setKeyLimit,
  revokeKey,
  rollKey,
  listAccessRequests,
  approveAccessRequest,
  denyAccessRequest,
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
  myAccessRequests,
  myApps,
  revokeApp,
  revokePersonalKey,
  usage,
  audit,
} as const;

/** The name of a management operation (its OpenAPI operationId). */
export type OperationId = keyof typeof MANAGEMENT_OPERATIONS;

/** The declaration of the operation `I`. */
export type OperationOf<I extends OperationId> = (typeof MANAGEMENT_OPERATIONS)[I];
