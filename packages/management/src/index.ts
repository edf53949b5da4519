/** The management layer (docs/management.md): one place for what people and keys may manage. */
export { createManagement, type Management } from './management.ts';
export * from './types.ts';
