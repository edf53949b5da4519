/**
 * The REST tool route's own steps: POST /api/v1/projects/<slug>/tools/<tool> (and /teams/...).
 * The body is the arguments object; the answer is the tool's result ({content, structuredContent?,
 * isError?}); refusals are {"error": {code, message, remedy}} with the catalogue's status.
 */
import { SvcError } from '@svc/errors';
import { toolCaller } from '../auth/tool-caller.ts';
import { prepareCall } from '../methods/prepare-call.ts';
import type { runTool } from '../methods/tools-call.ts';
import type { Exchange, Step } from '../pipeline/exchange.ts';
import { callerOf } from '../pipeline/exchange.ts';
import { respond } from '../pipeline/run.ts';
import type { ToolRegistry } from '../tools/registry.ts';

/** The tool named in the path, the policy's decision and the arguments: refused here, nothing is charged. */
export function prepareRestCall(registry: ToolRegistry, legacyNames: boolean, toolOf: (ex: Exchange) => string): Step {
  return function prepareRestCall(ex) {
    const name = toolOf(ex);
    const prepared = prepareCall(ex.toolSet ?? registry, { name, arguments: ex.body }, ex.policy!, legacyNames);
    ex.prepared = prepared;
    if (prepared.legacyName) ex.legacy = true;
    const refusal = prepared.refusal;
    if (!refusal) return;
    if (refusal.kind === 'denied') throw refusal.error;
    if (refusal.kind === 'unknown_tool')
      throw new SvcError('not_found', { message: `Unknown tool: ${name.slice(0, 100)}`, remedy: listRemedy(ex) });
    throw new SvcError('invalid_request', { message: refusal.message, remedy: schemaRemedy(ex, prepared.tool?.def.name ?? name) });
  };
}

/**
 * Where the caller finds the tools it can call here: the OpenAPI document lists only the built-in
 * tools, for every caller, where tools/list (and `svc tools`, which reads it) gives the caller's
 * own, a project's upstream tools included (docs/decisions.md "REST"). No REST route lists them.
 */
function listRemedy(ex: Exchange): string {
  const { kind, slug } = ex.target;
  if (kind !== 'project') return `The tools you can call: tools/list on POST /mcp/team/${slug} (MCP), or svc_help there.`;
  return `The tools you can call: svc tools --project ${slug}, or tools/list on POST /mcp/${slug} (MCP), or svc_help there.`;
}

/** Where the caller reads the schema a tool's arguments must fit: the tool's inputSchema in tools/list. */
function schemaRemedy(ex: Exchange, tool: string): string {
  const { kind, slug } = ex.target;
  const shown =
    kind === 'project'
      ? `svc tools describe ${tool} --project ${slug} shows it, as tools/list on POST /mcp/${slug} does`
      : `tools/list on POST /mcp/team/${slug} shows it`;
  return `Send the arguments as a JSON object that fits the tool's inputSchema: ${shown}.`;
}

export function callTool(run: ReturnType<typeof runTool>): Step {
  return async function callTool(ex) {
    const caller = callerOf(ex);
    const result = await run(ex.prepared!, {
      caller,
      toolCaller: toolCaller(caller, ex.surface, ex.req.headers, { source: ex.source, requestId: ex.requestId }),
      policy: ex.policy!,
      requestId: ex.requestId,
      prepared: ex.prepared,
      toolSet: ex.toolSet,
    });
    respond(ex, result);
  };
}
