/**
 * tools/call. Unknown tool: -32602. Refused by the policy: an access_denied JSON-RPC error naming
 * the gate and what is needed. Arguments that fail the tool's schema, and failures the model
 * should correct, are results with isError (MCP 2025-11-25 "Error Handling").
 */
import { SvcError } from '@svc/errors';
import type { Logger } from '@svc/logger';
import { describeRefusal } from '@svc/policy';
import { ACCESS_DENIED, INVALID_PARAMS, RpcError } from '../mcp/rpc-error.ts';
import { describeArgumentErrors } from '../tools/registry.ts';
import type { ToolResult } from '../tools/types.ts';
import { ToolFailure } from '../tools/types.ts';
import type { MethodHandler } from './types.ts';

export interface ToolsCallDeps {
  logger: Logger;
  onCall?: (tool: string, outcome: 'ok' | 'tool_error' | 'invalid_arguments' | 'denied' | 'failed') => void;
}

const failure = (message: string): ToolResult => ({ content: [{ type: 'text', text: message }], isError: true });

export function toolsCall(deps: ToolsCallDeps): MethodHandler {
  return async (params, ctx) => {
    const prepared = ctx.prepared;
    if (typeof params['name'] !== 'string' || !prepared) throw new RpcError(INVALID_PARAMS, 'Invalid params: "name" must be a string');
    const { tool, decision } = prepared;
    if (!tool || !decision)
      throw new RpcError(INVALID_PARAMS, `Unknown tool: ${prepared.name}. Call tools/list or svc_help for the tools available here.`);
    if (!decision.allowed) {
      deps.onCall?.(tool.def.name, 'denied');
      throw new RpcError(ACCESS_DENIED, `Access denied: ${describeRefusal(tool.def.name, decision)}`, {
        code: 'access_denied',
        gate: decision.gate,
        needed: decision.needed,
        have: decision.have,
        remedy:
          decision.gate === 'level'
            ? `Call svc_request_access with requested_level ${decision.needed} and a reason.`
            : 'Call svc_help to see what is available here and why.',
      });
    }
    const args = prepared.args;
    if (args === null || typeof args !== 'object' || Array.isArray(args)) {
      deps.onCall?.(tool.def.name, 'invalid_arguments');
      return failure(`Invalid arguments for ${tool.def.name}: "arguments" must be an object`);
    }
    if (!tool.validate(args)) {
      deps.onCall?.(tool.def.name, 'invalid_arguments');
      return failure(`Invalid arguments for ${tool.def.name}: ${describeArgumentErrors(tool.validate)}`);
    }
    try {
      const result = await tool.def.call(args as Record<string, unknown>, ctx.toolCaller);
      deps.onCall?.(tool.def.name, result.isError ? 'tool_error' : 'ok');
      return result;
    } catch (err) {
      if (err instanceof ToolFailure) {
        deps.onCall?.(tool.def.name, 'tool_error');
        return failure(err.message);
      }
      if (err instanceof SvcError) throw err;
      deps.onCall?.(tool.def.name, 'failed');
      deps.logger.error('tool failed', { tool: tool.def.name, requestId: ctx.requestId, err });
      if (isRedisUnavailable(err))
        throw new SvcError('service_unavailable', {
          message: 'Service temporarily unavailable: storage cannot be reached',
          detail: String(err),
        });
      return failure(`${tool.def.name} failed unexpectedly; the failure is logged under request id ${ctx.requestId}.`);
    }
  };
}

function isRedisUnavailable(err: unknown): boolean {
  const msg = err instanceof Error ? err.message : '';
  return /Stream isn't writeable|Connection is closed|ECONNREFUSED|enableOfflineQueue|max retries/i.test(msg);
}
