/**
 * An upstream tool as the gateway calls it (docs/upstream-servers.md "A forwarded call"): the call
 * has passed the same pipeline as a built-in tool's (authentication, its policy row, limits and
 * quotas, its arguments checked against the upstream's schema); here svc signs a token for this
 * one call (the caller's own credential never leaves svc) and forwards it, behind the upstream's
 * breaker. The upstream's result comes back as it is; a failure of the upstream is a JSON-RPC
 * error naming why (`upstream_failed`, error.data.reason), never a 500.
 */
import { SvcError } from '@svc/errors';
import type { Logger } from '@svc/logger';
import { isKeyLevel } from '@svc/policy';
import { UpstreamFailure, type Breakers, type Upstream, type Upstreams } from '@svc/upstreams';
import type { ToolCaller, ToolResult } from '../tools/types.ts';

export interface ForwardDeps {
  upstreams: Upstreams;
  breakers: Breakers;
  logger: Logger;
  /** An upstream said its tools changed (notifications/tools/list_changed): read them again. */
  onListChanged: (upstream: Upstream, workspace: string) => void;
}

const SUBJECT_OF: Record<ToolCaller['type'], string> = { user: 'user', key: 'key', bot: 'service_account' };

/** The call of tool `tool` of `upstream`, as a built-in tool's `call` is. */
export function forwarder(deps: ForwardDeps, upstream: Upstream, tool: string) {
  const breakerKey = `${upstream.project}\n${upstream.name}`;
  return async (args: Record<string, unknown>, caller: ToolCaller): Promise<ToolResult> => {
    const failed = (reason: string, message: string, extra: Record<string, unknown> = {}) =>
      new SvcError('upstream_failed', {
        message: `${upstream.name}: ${message}`,
        inBody: true,
        data: { upstream: upstream.name, reason, ...extra },
      });
    if (!deps.breakers.allow(caller.workspace, breakerKey))
      throw failed('breaker', 'the upstream failed repeatedly and is not called for a while; retry in a minute');
    // The level svc lets this caller act at here: what the upstream is told it may do.
    const acting = {
      subject: `${SUBJECT_OF[caller.type]}:${caller.id}`,
      clientId: caller.clientId,
      level: isKeyLevel(caller.role) ? caller.role : 'VIEWER',
    } as const;
    try {
      const endpoint = deps.upstreams.endpointOf(upstream, caller.workspace, acting);
      // The caller asked for progress: the upstream is asked for its own, relayed as it comes.
      const answer = await deps.upstreams.client.callTool(endpoint, tool, args, caller.progress);
      deps.breakers.record(caller.workspace, breakerKey, true);
      if (answer.listChanged) deps.onListChanged(upstream, caller.workspace);
      return resultOf(answer.result);
    } catch (err) {
      // svc's own failure, or its own bound (the workspace's share of the tools lane is held: reason
      // `busy`), says nothing of the upstream's health: it neither counts nor keeps a trial call.
      if (!(err instanceof UpstreamFailure) || err.reason === 'busy') deps.breakers.release(caller.workspace, breakerKey);
      if (!(err instanceof UpstreamFailure)) throw err;
      // The upstream's own refusal of the call (a JSON-RPC error) says nothing of its health either.
      if (err.reason !== 'busy') deps.breakers.record(caller.workspace, breakerKey, err.reason === 'rpc');
      deps.logger.warn('upstream call failed', {
        upstream: upstream.name,
        project: upstream.project,
        reason: err.reason,
        requestId: caller.origin.requestId,
      });
      // error.data.code is svc's code (upstream_failed, @svc/errors toJsonRpcError); the upstream's own goes beside it.
      throw failed(err.reason, err.message, err.rpcError ? { upstreamCode: err.rpcError.code } : {});
    }
  };
}

/** The upstream's CallToolResult as svc answers it: its content and structured content, and whether it is an error. */
function resultOf(result: Record<string, unknown>): ToolResult {
  const content = Array.isArray(result['content']) ? result['content'] : [];
  const structured = result['structuredContent'];
  return {
    content: content as ToolResult['content'],
    ...(structured !== null && typeof structured === 'object' && !Array.isArray(structured)
      ? { structuredContent: structured as Record<string, unknown> }
      : {}),
    ...(result['isError'] === true ? { isError: true } : {}),
  };
}
