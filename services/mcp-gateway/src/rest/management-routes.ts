/**
 * The management API's routes (docs/management.md "REST"), derived from the contract: one per
 * operation of MANAGEMENT_OPERATIONS, so no operation can lack its route; the gateway's one router
 * (src/routes.ts) matches them. A route calls the management layer's method named by the
 * operation's id with the actor, the path parameters in the order the path names them, and the
 * input (the body, checked and with its defaults filled, for POST and PATCH; the query for GET and
 * DELETE), and answers what it returns with the operation's first declared status. An operation
 * whose layer takes or answers another shape than the wire's has a wire adapter in WIRE_ADAPTERS
 * instead (./management/*.ts, by resource).
 */
import type { Actor, Operations } from '@svc/management';
import {
  MANAGEMENT_OPERATIONS,
  pathParamNames,
  type AnswerOf,
  type OperationDeclaration,
  type OperationId,
  type OperationOf,
  type PathArgsOf,
  type ValidBodyOf,
} from '@svc/management/contract';
import { ACCESS_REQUEST_ADAPTERS } from './management/access-requests.ts';
import { APPROVAL_ADAPTERS } from './management/approvals.ts';
import { CLIENT_POLICY_ADAPTERS } from './management/client-policy.ts';
import { KEY_ADAPTERS } from './management/keys.ts';
import { MEMBER_ADAPTERS } from './management/members.ts';
import { SCIM_ADAPTERS } from './management/scim.ts';
import { SERVICE_ACCOUNT_ADAPTERS } from './management/service-accounts.ts';
import { SSO_ADAPTERS } from './management/sso.ts';
import { TRUSTED_ISSUER_ADAPTERS } from './management/trusted-issuers.ts';
import { UPSTREAM_ADAPTERS } from './management/upstreams.ts';
import { WEBHOOK_ADAPTERS } from './management/webhooks.ts';
import { WORKLOAD_ISSUER_ADAPTERS } from './management/workload-issuers.ts';
import { ME_ADAPTERS, WORKSPACE_ADAPTERS } from './management/workspaces.ts';
import type { ManagementRoute, WireAdapters } from './management/wire.ts';

export type { ManagementRoute } from './management/wire.ts';

/** The wire adapters, by operation id: the operations whose layer shape is not the wire's. */
export const WIRE_ADAPTERS = {
  ...KEY_ADAPTERS,
  ...ACCESS_REQUEST_ADAPTERS,
  ...APPROVAL_ADAPTERS,
  ...MEMBER_ADAPTERS,
  ...SERVICE_ACCOUNT_ADAPTERS,
  ...TRUSTED_ISSUER_ADAPTERS,
  ...WORKLOAD_ISSUER_ADAPTERS,
  ...CLIENT_POLICY_ADAPTERS,
  ...WEBHOOK_ADAPTERS,
  ...UPSTREAM_ADAPTERS,
  ...WORKSPACE_ADAPTERS,
  ...SSO_ADAPTERS,
  ...SCIM_ADAPTERS,
  ...ME_ADAPTERS,
} satisfies WireAdapters;

/** The input the route gives an operation's method after its path parameters. */
type InputOf<O extends OperationDeclaration> = undefined extends O['body'] ? Record<string, string> : ValidBodyOf<O>;
/** How a route without an adapter calls the layer: its method must take this and answer the declared answer. */
type WireShaped<O extends OperationDeclaration> = (actor: Actor, ...args: [...PathArgsOf<O>, InputOf<O>]) => Promise<AnswerOf<O>>;
type Unadapted = Exclude<OperationId, keyof typeof WIRE_ADAPTERS>;
type NotWireShaped = { [I in Unadapted]: Operations[I] extends WireShaped<OperationOf<I>> ? never : I }[Unadapted];

/**
 * A compile-time check, `true` only when every operation without an adapter has a method that
 * takes the wire's input and answers its declared answer (the type names those that do not).
 */
export const EVERY_OPERATION_ANSWERS_ITS_DECLARATION: [NotWireShaped] extends [never] ? true : { notWireShaped: NotWireShaped } = true;

/** The query as an operation's input: each parameter's first value, as URLSearchParams.get reads it. */
function queryInput(query: URLSearchParams): Record<string, string> {
  const input: Record<string, string> = {};
  for (const [name, value] of query) if (!Object.hasOwn(input, name)) input[name] = value;
  return input;
}

/** The route of an operation without an adapter: the layer's method, its answer, the first declared status. */
function layerCall(id: OperationId, declaration: OperationDeclaration): ManagementRoute['operation'] {
  const names = pathParamNames(declaration.path);
  const takesBody = declaration.method === 'POST' || declaration.method === 'PATCH';
  return async (m, actor, { params, query, body }) => {
    const method = (m as unknown as Record<OperationId, (...args: unknown[]) => Promise<unknown>>)[id];
    const answer = await method(actor, ...names.map((name) => params[name]), takesBody ? body : queryInput(query));
    return { status: declaration.statuses[0], body: answer };
  };
}

/** Every route, one per operation; their OpenAPI entries come from the same declarations (management-openapi.ts). */
export const MANAGEMENT_ROUTES: readonly ManagementRoute[] = (Object.keys(MANAGEMENT_OPERATIONS) as OperationId[]).map((id) => {
  const declaration: OperationDeclaration = MANAGEMENT_OPERATIONS[id];
  const adapter = (WIRE_ADAPTERS as WireAdapters)[id];
  return {
    id,
    method: declaration.method,
    path: declaration.path,
    name: declaration.summary,
    declaration,
    // The runner validated the body against the declaration first (validateManagementRequest), and
    // the router matched every parameter the path names: the input is what the adapter's type says.
    operation: adapter ? (adapter as unknown as ManagementRoute['operation']) : layerCall(id, declaration),
  };
});
