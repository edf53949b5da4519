import type { CallerContext } from '@svc/policy';
import type { ResolvedCaller } from '../auth/caller.ts';
import type { PreparedCall } from './prepare-call.ts';
import type { ToolLookup } from '../tools/registry.ts';
import type { ToolCaller } from '../tools/types.ts';

/** What a JSON-RPC method handler gets besides its params. */
export interface RpcContext {
  caller: ResolvedCaller;
  toolCaller: ToolCaller;
  policy: CallerContext;
  requestId: string;
  /** tools/call only: the tool, arguments and policy decision, settled before rate limiting. */
  prepared: PreparedCall | null;
  /** The project's tools with its upstream servers' (loadToolSet); null: the built-in ones. */
  toolSet: ToolLookup | null;
  /** The client declared the MCP Tasks extension on this request (SEP-2663): a held call may answer as a task. */
  tasks?: boolean;
}

export type MethodHandler = (params: Record<string, unknown>, ctx: RpcContext) => Promise<unknown>;
