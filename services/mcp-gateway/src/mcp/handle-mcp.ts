/**
 * POST /mcp/<project_slug> and /mcp/team/<team_slug>: MCP's Streamable HTTP transport, answered
 * statelessly with one application/json object. A pipeline of named steps:
 *   checkTransport -> readBody -> parse -> authenticate -> admit (rate limit) -> dispatch
 * Errors before the id is known answer with id null; after, with the request's id.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonRpcId } from '@svc/errors';
import { SvcError, asSvcError } from '@svc/errors';
import type { Logger } from '@svc/logger';
import type { Authenticate } from '../auth/authenticate.ts';
import { policyContext } from '../auth/policy-context.ts';
import type { ResolvedCaller, Target } from '../auth/caller.ts';
import { readBody } from '../http/body.ts';
import { sendEmpty, sendJson, sendRpcError } from '../http/respond.ts';
import type { Headers } from '../http/respond.ts';
import { prepareCall } from '../methods/prepare-call.ts';
import type { MethodHandler, RpcContext } from '../methods/types.ts';
import type { Admit } from '../ratelimit/admit.ts';
import { LEGACY_DEPRECATION } from '../ratelimit/admit.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { ToolCaller } from '../tools/types.ts';
import { asRequest, idOf } from './envelope.ts';
import { checkMediaTypes, checkOrigin, checkProtocolVersion } from './checks.ts';
import { METHOD_NOT_FOUND, RpcError } from './rpc-error.ts';

export interface McpDeps {
  authenticate: Authenticate;
  admit: Admit;
  registry: ToolRegistry;
  methods: Record<string, MethodHandler>;
  logger: Logger;
  maxBodyBytes: number;
  legacyNames: boolean;
  originAllowed: (origin: string) => boolean;
  /** The 401 challenge for a target (RFC 9728 resource_metadata on project endpoints). */
  challenge: (target: Target, err: SvcError) => string;
  corsHeaders: (req: IncomingMessage) => Headers;
}

const SESSION_ID = /^[\x21-\x7e]{1,128}$/;

export function createMcpHandler(deps: McpDeps) {
  return async function handleMcp(req: IncomingMessage, res: ServerResponse, target: Target, requestId: string): Promise<void> {
    const base: Headers = { ...deps.corsHeaders(req), 'X-Request-Id': requestId };
    let id: JsonRpcId = null;
    let headers = base;
    try {
      checkOrigin(req.headers, deps.originAllowed);
      checkProtocolVersion(req.headers);
      checkMediaTypes(req.headers);
      const raw = await readBody(req, deps.maxBodyBytes);
      let body: unknown;
      let parseError: SvcError | null = null;
      try {
        body = JSON.parse(raw);
        id = idOf(body);
      } catch (err) {
        parseError = new SvcError('parse_error', {
          message: `Parse error: the body is not valid JSON (${err instanceof Error ? err.message : 'unreadable'})`,
        });
      }
      const caller = await deps.authenticate(req.headers, target);
      const { surface, policy } = policyContext(caller, req.headers, target);
      let request = null;
      let envelopeError: SvcError | null = parseError;
      if (!envelopeError) {
        try {
          request = asRequest(body);
        } catch (err) {
          envelopeError = asSvcError(err);
        }
      }
      const prepared = request?.method === 'tools/call' ? prepareCall(deps.registry, request.params ?? {}, policy, deps.legacyNames) : null;
      headers = { ...base, ...(await deps.admit(caller, prepared?.countsAsQuery ?? false)) };
      if (prepared?.legacyName) headers['Deprecation'] = LEGACY_DEPRECATION;
      if (envelopeError || !request) throw envelopeError ?? new SvcError('invalid_request');
      // A notification, or a response the client sends back: accepted, nothing to answer.
      if (request.id === undefined || request.id === null) {
        sendEmpty(res, 202, headers);
        return;
      }
      const handler = deps.methods[request.method];
      if (!handler) throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${request.method.slice(0, 100)}`);
      const ctx: RpcContext = { caller, toolCaller: toolCaller(caller, surface, req), policy, requestId, prepared };
      const result = await handler(request.params ?? {}, ctx);
      sendJson(res, 200, { jsonrpc: '2.0', id: request.id, result }, headers);
    } catch (err) {
      if (err instanceof RpcError) {
        sendJson(
          res,
          200,
          { jsonrpc: '2.0', id, error: { code: err.code, message: err.message, ...(err.data ? { data: err.data } : {}) } },
          headers,
        );
        return;
      }
      const e = asSvcError(err);
      if (e.status >= 500) deps.logger.error('mcp request failed', { requestId, code: e.code, detail: e.detail });
      else deps.logger.http('mcp request refused', { requestId, code: e.code, detail: e.detail });
      const extra: Headers = e.status === 401 ? { 'WWW-Authenticate': deps.challenge(target, e) } : {};
      if (e.code === 'payload_too_large') extra['Connection'] = 'close';
      sendRpcError(res, e, id, { ...headers, ...extra });
    }
  };
}

/** The caller as tools see it; the MCP session (when sent) narrows the credential's own session. */
export function toolCaller(c: ResolvedCaller, surface: ToolCaller['surface'], req: IncomingMessage): ToolCaller {
  const mcpSession = req.headers['mcp-session-id'];
  const session = typeof mcpSession === 'string' && SESSION_ID.test(mcpSession) ? `${c.session}:${mcpSession}` : c.session;
  return {
    type: c.type,
    id: c.id,
    label: c.label,
    role: c.role,
    serviceAccount: c.serviceAccount,
    plan: c.plan,
    agents: c.agents,
    surface,
    project: c.project,
    workspace: c.workspace,
    grantedProjects: c.grantedProjects,
    sessionId: session,
  };
}
