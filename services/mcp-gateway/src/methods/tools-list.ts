/** tools/list: only the tools this caller may call here (policy table, via the registry). */
import { keepText } from '../http/json-text.ts';
import type { ListedTool, ToolRegistry } from '../tools/registry.ts';
import type { MethodHandler } from './types.ts';

export function toolsList(deps: { registry: ToolRegistry }): MethodHandler {
  // One result per list the registry keeps (one per policy context), serialized once
  // (docs/gateway-pipeline.md "Answers serialized once").
  const results = new WeakMap<ListedTool[], { tools: ListedTool[] }>();
  return async (_params, ctx) => {
    const tools = (ctx.toolSet ?? deps.registry).listFor(ctx.policy);
    let result = results.get(tools);
    if (!result) results.set(tools, (result = keepText({ tools })));
    return result;
  };
}
