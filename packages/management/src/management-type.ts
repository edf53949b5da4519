/**
 * The management layer's interface (docs/management.md "The contract"), in two parts:
 * - `Operations`: one method per operation of the contract (contract/operations.ts), named by its
 *   id. Its arguments after the actor are the operation's path parameters in the order its path
 *   names them, then its input (the body, or the query); rules.ts applies each operation's
 *   declared rules on that convention, and the gateway's REST routes call the methods on it.
 * - `InternalCalls`: what the layer does for its doors that is no operation of the API (the
 *   dashboard's menus and pages, the sweep, the SCIM and SSO clean-ups, the leak report).
 * Each group's methods are declared and described in its own file beside the factory that
 * implements them; this file names the groups only, so those files and rules.ts can speak of the
 * whole layer without importing management.ts, which builds it from them. The checks at the end
 * fail to compile when the two parts and the contract disagree.
 */
import type { AccessRequestInternals, AccessRequestOperations } from './access-request-operations.ts';
import type { AccountInternals, AccountOperations } from './account-operations.ts';
import type { ClientPolicyOperations } from './client-policy-operations.ts';
import type { ApprovalOperations } from './approval-operations.ts';
import type { BuiltinToolOperations } from './builtin-tool-operations.ts';
import type { PathArgsOf } from './contract/define.ts';
import type { OperationId, OperationOf } from './contract/operations.ts';
import type { FactorOperations } from './factor-operations.ts';
import type { KeyControlOperations } from './key-control-operations.ts';
import type { KeyInternals, KeyOperations } from './key-operations.ts';
import type { MemberInternals, MemberOperations } from './member-operations.ts';
import type { RequestAccessOperation } from './request-access.ts';
import type { AccessEndInternals } from './access-end.ts';
import type { ScimOperations } from './scim-operations.ts';
import type { ServiceAccountClientOperations } from './service-account-client-operations.ts';
import type { ServiceAccountOperations } from './service-account-operations.ts';
import type { SsoOperations } from './sso-operations.ts';
import type { TakeoverInternals } from './takeover.ts';
import type { TrustedIssuerOperations } from './trusted-issuer-operations.ts';
import type { Actor } from './types.ts';
import type { WorkloadIssuerOperations } from './workload-issuer-operations.ts';
import type { UpstreamOperations } from './upstream-operations.ts';
import type { UsageOperations } from './usage-operations.ts';
import type { WebhookOperations } from './webhook-operations.ts';
import type { WorkspaceInternals, WorkspaceOperations } from './workspace-operations.ts';

/** One method per operation of the contract, named by its operation id. */
export type Operations = KeyOperations &
  KeyControlOperations &
  AccessRequestOperations &
  RequestAccessOperation &
  ApprovalOperations &
  MemberOperations &
  WorkspaceOperations &
  ServiceAccountOperations &
  ServiceAccountClientOperations &
  TrustedIssuerOperations &
  WorkloadIssuerOperations &
  ClientPolicyOperations &
  WebhookOperations &
  UpstreamOperations &
  BuiltinToolOperations &
  AccountOperations &
  UsageOperations &
  FactorOperations &
  SsoOperations &
  ScimOperations;

/** The layer's calls that are no operation of the API. */
export type InternalCalls = KeyInternals &
  AccessRequestInternals &
  MemberInternals &
  WorkspaceInternals &
  AccountInternals &
  TakeoverInternals &
  AccessEndInternals;

/** The whole layer, as createManagement (management.ts) makes it. */
export type Management = Operations & InternalCalls;

/**
 * The internal calls that perform an operation another way, checked by that operation's rules
 * (rules.ts): putMember's two halves as the dashboard's Members page offers them, and the audit
 * log's export (audit with `format=jsonl`). They take their arguments as operations do.
 */
export const VARIANTS = { addMember: 'putMember', setRole: 'putMember', auditExport: 'audit' } as const satisfies Partial<
  Record<keyof InternalCalls, OperationId>
>;
type Variant = keyof typeof VARIANTS;

/** The arguments every method of `Operations` starts with: the actor, then its path parameters in order. */
type Leading<I extends OperationId> = [Actor, ...PathArgsOf<OperationOf<I>>];

type Unimplemented = Exclude<OperationId, keyof Operations>;
type NotAnOperation = Exclude<keyof Operations, OperationId>;
type InternalAndOperation = Extract<keyof InternalCalls, OperationId>;
type OffConvention =
  | { [I in OperationId]: Parameters<Operations[I]> extends [...Leading<I>, ...unknown[]] ? never : I }[OperationId]
  | { [V in Variant]: Parameters<InternalCalls[V]> extends [...Leading<(typeof VARIANTS)[V]>, ...unknown[]] ? never : V }[Variant];

/**
 * Compile-time checks, `true` only when none fails (the type names what does): every operation
 * has its method in `Operations` and every method there is an operation; no internal call takes an
 * operation's name; every method (and variant) takes the actor and then its path parameters, as
 * strings, first.
 */
export const OPERATIONS_ARE_THE_CONTRACT: [Unimplemented | NotAnOperation | InternalAndOperation | OffConvention] extends [never]
  ? true
  : {
      unimplemented: Unimplemented;
      notAnOperation: NotAnOperation;
      internalAndOperation: InternalAndOperation;
      offConvention: OffConvention;
    } = true;
