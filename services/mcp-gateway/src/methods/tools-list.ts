/** tools/list: only the tools this caller may call here (policy table, via the registry). */
import type { ToolRegistry } from '../tools/registry.ts';
import type { MethodHandler } from './types.ts';

export function toolsList(deps: { registry: ToolRegistry }): MethodHandler {
  return async (_params, ctx) => ({ tools: deps.registry.listFor(ctx.policy) });
}
