/**
 * POST /api/v1/projects/<slug>/tools/<tool> and /api/v1/teams/<team>/tools/<tool>: the tools over
 * REST, with the same credentials, policy, rate limits, quota and headers as MCP. The body is the
 * arguments object; the answer is the tool's result ({content, structuredContent?, isError?}).
 * Errors: {"error": {code, message, remedy}} with the catalogue's status.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SvcError, asSvcError } from '@svc/errors';
import type { Logger } from '@svc/logger';
import type { Authenticate } from '../auth/authenticate.ts';
import { policyContext } from '../auth/policy-context.ts';
import type { Target } from '../auth/caller.ts';
import { readBody } from '../http/body.ts';
import type { Headers } from '../http/respond.ts';
import { sendJson, sendRestError } from '../http/respond.ts';
import { checkMediaTypes, checkOrigin } from '../mcp/checks.ts';
import { toolCaller } from '../mcp/handle-mcp.ts';
import { ACCESS_DENIED, RpcError } from '../mcp/rpc-error.ts';
import { prepareCall } from '../methods/prepare-call.ts';
import type { MethodHandler } from '../methods/types.ts';
import type { Admit } from '../ratelimit/admit.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { describeArgumentErrors } from '../tools/registry.ts';

export interface RestDeps {
  authenticate: Authenticate;
  admit: Admit;
  registry: ToolRegistry;
  toolsCall: MethodHandler;
  logger: Logger;
  maxBodyBytes: number;
  legacyNames: boolean;
  originAllowed: (origin: string) => boolean;
  corsHeaders: (req: IncomingMessage) => Headers;
}

export function createRestHandler(deps: RestDeps) {
  return async function handleRest(
    req: IncomingMessage,
    res: ServerResponse,
    target: Target,
    toolName: string,
    requestId: string,
  ): Promise<void> {
    let headers: Headers = { ...deps.corsHeaders(req), 'X-Request-Id': requestId };
    try {
      checkOrigin(req.headers, deps.originAllowed);
      checkMediaTypes(req.headers);
      const raw = await readBody(req, deps.maxBodyBytes);
      let args: unknown;
      let parseError: SvcError | null = null;
      try {
        args = raw.trim() === '' ? {} : JSON.parse(raw);
      } catch {
        parseError = new SvcError('parse_error', {
          message: 'Parse error: the body is not valid JSON',
          remedy: 'Send the tool arguments as a JSON object.',
        });
      }
      const caller = await deps.authenticate(req.headers, target);
      const { surface, policy } = policyContext(caller, req.headers, target);
      const prepared = prepareCall(deps.registry, { name: toolName, arguments: args }, policy, deps.legacyNames);
      headers = { ...headers, ...(await deps.admit(caller, prepared.countsAsQuery)) };
      if (parseError) throw parseError;
      if (!prepared.tool)
        throw new SvcError('not_found', {
          message: `Unknown tool: ${toolName.slice(0, 100)}`,
          remedy: 'GET /api/v1/openapi.json lists the tools.',
        });
      if (args === null || typeof args !== 'object' || Array.isArray(args)) {
        throw new SvcError('invalid_request', {
          message: 'Invalid request: the body must be a JSON object of tool arguments',
          remedy: 'Send the arguments as a JSON object.',
        });
      }
      if (prepared.decision?.allowed && !prepared.tool.validate(args)) {
        throw new SvcError('invalid_request', {
          message: `Invalid arguments for ${prepared.tool.def.name}: ${describeArgumentErrors(prepared.tool.validate)}`,
          remedy: 'Fix the arguments; the OpenAPI document gives their schema.',
        });
      }
      const result = await deps.toolsCall(
        { name: toolName, arguments: args },
        {
          caller,
          toolCaller: toolCaller(caller, surface, req),
          policy,
          requestId,
          prepared,
        },
      );
      sendJson(res, 200, result, headers);
    } catch (err) {
      let e: SvcError;
      if (err instanceof RpcError) {
        const data = err.data ?? {};
        const remedy = typeof data['remedy'] === 'string' ? data['remedy'] : 'Call svc_help to see what is available here and why.';
        e =
          err.code === ACCESS_DENIED
            ? new SvcError('access_denied', { message: err.message, remedy, data: { gate: data['gate'], needed: data['needed'] } })
            : new SvcError('invalid_request', { message: err.message });
      } else e = asSvcError(err);
      if (e.status >= 500) deps.logger.error('rest request failed', { requestId, code: e.code, detail: e.detail });
      const extra: Headers = e.status === 401 ? { 'WWW-Authenticate': 'Bearer realm="svc"' } : {};
      sendRestError(res, e, { ...headers, ...extra });
    }
  };
}
