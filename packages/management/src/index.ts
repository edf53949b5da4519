/** The management layer (docs/management.md): one place for what people and keys may manage. */
export { countManagementRequest, MANAGEMENT_PER_MINUTE } from './bucket.ts';
export { KEY_DEFAULTS, LEVELS } from './contract/defaults.ts';
export { streamExport } from './export-stream.ts';
export { createManagement } from './management.ts';
export type { BuiltinToolView } from './builtin-tool-operations.ts';
export { VARIANTS, type Management, type Operations } from './management-type.ts';
export * from './types.ts';
export type { WebhookRow } from './webhook-operations.ts';
export type { ScimView } from './scim-operations.ts';
