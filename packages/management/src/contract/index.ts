/**
 * The management API's contract (docs/management.md "The contract"): every operation declared once
 * with its schemas, the defaults, and the typed client derived from them. Light on purpose: the
 * CLI imports it without the management layer's stores.
 */
export { managementClient, type CallResult } from './client.ts';
export { KEY_DEFAULTS, LEVELS, MAX_KEY_SEARCH } from './defaults.ts';
export { LIST_MAX_PAGE } from '@svc/accounts/pages.ts';
export { pathParamNames } from './define.ts';
export type {
  AnswerOf,
  BodyOf,
  InputOf,
  ObjectSchema,
  OperationDeclaration,
  ParamsOf,
  PathArgsOf,
  StatusOf,
  ValidBodyOf,
} from './define.ts';
export { REPORT_LEAK } from './keys.ts';
export { REFUSAL, type Refusal } from './refusal.ts';
export { MANAGEMENT_OPERATIONS, type OperationId, type OperationOf } from './operations.ts';
export { STEP_UP_MINUTES, WORKSPACE_SETTINGS, type WorkspaceSetting } from './policy.ts';
