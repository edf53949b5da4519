/**
 * Which operation of the contract each call of the management layer is (docs/management.md "The
 * contract"): the layer applies that operation's declared rules before the call runs (rules.ts),
 * whichever door made it. Each entry names the operations it may be (a method that serves two, as
 * `setKeyDisabled` serves disableKey and enableKey, picks one from its arguments) and the path
 * parameters a refusal names. Every operation must be some call's: the type check below fails
 * when an operation is declared and no call is bound to it.
 */
import type { OperationId } from './contract/operations.ts';
import type { Management } from './management-type.ts';

type Params = Record<string, string>;

/** One method of the layer bound to the operations it performs. */
export interface Call<M extends keyof Management = keyof Management, O extends OperationId = OperationId> {
  readonly method: M;
  readonly ops: readonly O[];
  pick(...args: Parameters<Management[M]>): { op: O; params: Params };
}

function bind<M extends keyof Management, const O extends OperationId>(
  method: M,
  ops: readonly O[],
  pick: (...args: Parameters<Management[M]>) => { op: O; params: Params },
): Call<M, O> {
  return { method, ops, pick };
}

/** A method that is one operation on a project (its second argument), or on a workspace. */
const onProject = <M extends keyof Management, const O extends OperationId>(method: M, op: O) =>
  bind(method, [op], (...args) => ({ op, params: { project: String(args[1]) } }));
const onWorkspace = <M extends keyof Management, const O extends OperationId>(method: M, op: O) =>
  bind(method, [op], (...args) => ({ op, params: { workspace: String(args[1]) } }));
const onSelf = <M extends keyof Management, const O extends OperationId>(method: M, op: O) =>
  bind(method, [op], () => ({ op, params: {} }));

export const CALLS = [
  onProject('listKeys', 'listKeys'),
  onProject('createKey', 'createKey'),
  bind('setKeyDisabled', ['disableKey', 'enableKey'], (_a, project, _id, disabled) => ({
    op: disabled ? 'disableKey' : 'enableKey',
    params: { project },
  })),
  onProject('setKeyNote', 'setKeyNote'),
  onProject('setKeyAllowedIps', 'setKeyAllowedIps'),
  onProject('setKeyLimit', 'setKeyLimit'),
  onProject('revokeKey', 'revokeKey'),
  onProject('rollKey', 'rollKey'),
  onProject('listAccessRequests', 'listAccessRequests'),
  onProject('requestAccess', 'requestAccess'),
  bind('decideRequest', ['approveAccessRequest', 'denyAccessRequest'], (_a, project, _id, decision) => ({
    op: decision.approve ? 'approveAccessRequest' : 'denyAccessRequest',
    params: { project },
  })),
  onProject('listApprovals', 'listApprovals'),
  bind('decideApproval', ['approveApproval', 'denyApproval'], (_a, project, _id, decision) => ({
    op: decision.approve ? 'approveApproval' : 'denyApproval',
    params: { project },
  })),
  onProject('listMembers', 'listMembers'),
  onProject('addMember', 'putMember'),
  onProject('setRole', 'putMember'),
  onProject('cancelInvitation', 'cancelInvitation'),
  onProject('removeMember', 'removeMember'),
  onWorkspace('listServiceAccounts', 'listServiceAccounts'),
  onWorkspace('createServiceAccount', 'createServiceAccount'),
  onWorkspace('grantServiceAccount', 'grantServiceAccount'),
  onWorkspace('rotateServiceAccount', 'rotateServiceAccount'),
  onWorkspace('revokeServiceAccount', 'revokeServiceAccount'),
  onWorkspace('getServiceAccountClient', 'getServiceAccountClient'),
  onWorkspace('setServiceAccountClientKeys', 'setServiceAccountClientKeys'),
  onWorkspace('removeServiceAccountClientKeys', 'removeServiceAccountClientKeys'),
  onWorkspace('listTrustedIssuers', 'listTrustedIssuers'),
  onWorkspace('addTrustedIssuer', 'addTrustedIssuer'),
  onWorkspace('removeTrustedIssuer', 'removeTrustedIssuer'),
  onWorkspace('listWorkloadIssuers', 'listWorkloadIssuers'),
  onWorkspace('addWorkloadIssuer', 'addWorkloadIssuer'),
  onWorkspace('removeWorkloadIssuer', 'removeWorkloadIssuer'),
  onWorkspace('clientPolicy', 'clientPolicy'),
  onWorkspace('setClientPolicy', 'setClientPolicy'),
  onWorkspace('listClientApprovals', 'listClientApprovals'),
  onWorkspace('approveClient', 'approveClient'),
  onWorkspace('denyClient', 'denyClient'),
  onWorkspace('listWebhooks', 'listWebhooks'),
  onWorkspace('createWebhook', 'createWebhook'),
  onWorkspace('updateWebhook', 'updateWebhook'),
  onWorkspace('deleteWebhook', 'deleteWebhook'),
  onWorkspace('rotateWebhookSecret', 'rotateWebhookSecret'),
  onWorkspace('listWebhookDeliveries', 'listWebhookDeliveries'),
  onWorkspace('testWebhook', 'testWebhook'),
  onProject('listUpstreams', 'listUpstreams'),
  onProject('getUpstream', 'getUpstream'),
  onProject('addUpstream', 'addUpstream'),
  onProject('updateUpstream', 'updateUpstream'),
  onProject('refreshUpstream', 'refreshUpstream'),
  onProject('setUpstreamTool', 'setUpstreamTool'),
  onProject('removeUpstream', 'removeUpstream'),
  onProject('listBuiltinTools', 'listBuiltinTools'),
  onProject('setBuiltinTool', 'setBuiltinTool'),
  onWorkspace('usage', 'usage'),
  onWorkspace('audit', 'audit'),
  onWorkspace('auditExport', 'audit'),
  onWorkspace('factorPolicy', 'factorPolicy'),
  onWorkspace('setFactorPolicy', 'setFactorPolicy'),
  onWorkspace('resetFactors', 'resetFactors'),
  onWorkspace('ssoSettings', 'ssoSettings'),
  onWorkspace('configureSsoProvider', 'configureSsoProvider'),
  onWorkspace('setSsoPolicy', 'setSsoPolicy'),
  onWorkspace('claimSsoDomain', 'claimSsoDomain'),
  onWorkspace('verifySsoDomain', 'verifySsoDomain'),
  onWorkspace('releaseSsoDomain', 'releaseSsoDomain'),
  onWorkspace('scimSettings', 'scimSettings'),
  onWorkspace('createScimToken', 'createScimToken'),
  onWorkspace('revokeScimToken', 'revokeScimToken'),
  bind('createProject', ['createProject'], (_a, input) => ({ op: 'createProject', params: { workspace: input.workspace } })),
  onSelf('account', 'myApps'),
  onSelf('myAccessRequests', 'myAccessRequests'),
  onSelf('revokeApp', 'revokeApp'),
  onSelf('revokePersonalKey', 'revokePersonalKey'),
] as const;

/** Every operation is some call's (a compile-time check: `true` only when none is left out). */
type Unbound = Exclude<OperationId, (typeof CALLS)[number]['ops'][number]>;
export const EVERY_OPERATION_BOUND: [Unbound] extends [never] ? true : Unbound = true;
