/**
 * The management layer's interface (docs/management.md "Who may do what"): the operations of every
 * resource group, each declared and described in its own file beside the factory that implements
 * it. This file names the groups only, so the operations files, calls.ts and rules.ts can speak
 * of the whole layer without importing management.ts, which builds it from them.
 */
import type { AccessRequestOperations } from './access-request-operations.ts';
import type { AccountOperations } from './account-operations.ts';
import type { ClientPolicyOperations } from './client-policy-operations.ts';
import type { ApprovalOperations } from './approval-operations.ts';
import type { BuiltinToolOperations } from './builtin-tool-operations.ts';
import type { FactorOperations } from './factor-operations.ts';
import type { KeyControlOperations } from './key-control-operations.ts';
import type { KeyOperations } from './key-operations.ts';
import type { MemberOperations } from './member-operations.ts';
import type { RequestAccessOperation } from './request-access.ts';
import type { AccessEndOperations } from './access-end.ts';
import type { ScimOperations } from './scim-operations.ts';
import type { ServiceAccountClientOperations } from './service-account-client-operations.ts';
import type { ServiceAccountOperations } from './service-account-operations.ts';
import type { SsoOperations } from './sso-operations.ts';
import type { TakeoverOperations } from './takeover.ts';
import type { TrustedIssuerOperations } from './trusted-issuer-operations.ts';
import type { WorkloadIssuerOperations } from './workload-issuer-operations.ts';
import type { UpstreamOperations } from './upstream-operations.ts';
import type { UsageOperations } from './usage-operations.ts';
import type { WebhookOperations } from './webhook-operations.ts';
import type { WorkspaceOperations } from './workspace-operations.ts';

/** Every operation of the management layer, as createManagement (management.ts) makes it. */
export type Management = WorkspaceOperations &
  ServiceAccountOperations &
  UsageOperations &
  KeyOperations &
  KeyControlOperations &
  MemberOperations &
  AccessRequestOperations &
  ApprovalOperations &
  RequestAccessOperation &
  AccountOperations &
  FactorOperations &
  SsoOperations &
  ServiceAccountClientOperations &
  TrustedIssuerOperations &
  WorkloadIssuerOperations &
  ClientPolicyOperations &
  WebhookOperations &
  UpstreamOperations &
  BuiltinToolOperations &
  TakeoverOperations &
  ScimOperations &
  AccessEndOperations;
