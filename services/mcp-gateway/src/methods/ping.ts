import type { MethodHandler } from './types.ts';

/** ping (MCP basic utilities): an empty result. */
export function ping(): MethodHandler {
  return async () => ({});
}
