/**
 * The step that finds a project's upstream tools for a request that needs them (docs/gateway-pipeline.md):
 * tools/list on a project's endpoint, a call of a tool that is not built in, and a call of a
 * built-in tool that lists them (`readsToolSet`: svc_help). Another built-in tool's call, and the
 * team endpoint, never read them.
 */
import type { Step } from '../pipeline/exchange.ts';
import { callerOf } from '../pipeline/exchange.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { ProjectToolSets } from './tool-sets.ts';

/** `nameOf`: the tool a request calls (a tools/call's name, the REST route's path), or null for a list. */
export function loadToolSet(
  sets: ProjectToolSets,
  registry: ToolRegistry,
  nameOf: (ex: Parameters<Step>[0]) => string | null | undefined,
): Step {
  return async function loadToolSet(ex) {
    if (ex.target.kind !== 'project') return;
    const name = nameOf(ex);
    if (name === undefined) return;
    const builtIn = name === null ? undefined : registry.get(name);
    if (builtIn && !builtIn.def.readsToolSet) return;
    ex.toolSet = await sets.get(ex.target.slug, callerOf(ex).workspace);
  };
}

/** What an MCP request needs of the tool set: every tool for tools/list, the called one for tools/call, nothing otherwise. */
export function mcpToolNeeded(ex: Parameters<Step>[0]): string | null | undefined {
  const rpc = ex.rpc;
  if (!rpc) return undefined;
  // tasks/get may run an approved call of any of the project's tools (docs/approvals.md).
  if (rpc.method === 'tools/list' || rpc.method === 'tasks/get') return null;
  if (rpc.method !== 'tools/call') return undefined;
  const name = rpc.params?.['name'];
  return typeof name === 'string' ? name : undefined;
}
