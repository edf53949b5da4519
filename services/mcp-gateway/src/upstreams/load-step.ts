/**
 * The step that finds a project's tool set for a request that needs it (docs/gateway-pipeline.md):
 * tools/list and every tool call on a project's endpoint (a built-in tool's call too: the project's
 * admins may have set its approval rule, docs/approvals.md). The set is kept in memory per project
 * (tool-sets.ts), so this is a read from Redis only when it is not. The team endpoint never reads it.
 */
import type { Step } from '../pipeline/exchange.ts';
import { callerOf } from '../pipeline/exchange.ts';
import type { ProjectToolSet, ProjectToolSets } from './tool-sets.ts';

/** `nameOf`: the tool a request calls (a tools/call's name, the REST route's path), or null for a list. */
export function loadToolSet(sets: ProjectToolSets, nameOf: (ex: Parameters<Step>[0]) => string | null | undefined): Step {
  const keep = (ex: Parameters<Step>[0], set: ProjectToolSet): void => {
    ex.toolSet = set;
  };
  return function loadToolSet(ex) {
    if (ex.target.kind !== 'project') return;
    if (nameOf(ex) === undefined) return;
    const set = sets.get(ex.target.slug, callerOf(ex).workspace);
    // A set held and read is taken at once: no promise, no microtask turn.
    return set instanceof Promise ? set.then((s) => keep(ex, s)) : keep(ex, set);
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
