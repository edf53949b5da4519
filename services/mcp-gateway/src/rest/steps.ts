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
      throw new SvcError('not_found', {
        message: `Unknown tool: ${name.slice(0, 100)}`,
        remedy: 'GET /api/v1/openapi.json lists the tools.',
      });
    throw new SvcError('invalid_request', {
      message: refusal.message,
      remedy: 'Send the arguments as a JSON object that fits the schema in the OpenAPI document.',
    });
  };
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
