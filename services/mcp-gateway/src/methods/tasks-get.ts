/**
 * tasks/get (MCP Tasks extension, SEP-2663 "Polling"): a held call followed as a task
 * (docs/approvals.md "As an MCP task"). The task id is the approval's id; only the caller who made
 * the call is answered about it. Waiting for a decision, or running, is `working`; ran is
 * `completed` with the call's own result (an isError result included); denied, expired or no
 * longer matching its approval is `failed` with the JSON-RPC error the call would have had.
 */
import { SvcError, toJsonRpcError } from '@svc/errors';
import type { Followed } from './approvals.ts';
import type { ToolCaller, ToolsBeside } from '../tools/types.ts';
import type { MethodHandler } from './types.ts';
import { taskIdOf, taskOf, unknownTask } from './task-shape.ts';

/** The DetailedTask of a followed approval. */
function detailedTask(f: Followed): Record<string, unknown> {
  const a = f.approval;
  const updated = Math.max(a.createdAt, a.decidedAt ?? 0);
  if (f.state === 'pending' || f.state === 'running') return taskOf(a.id, a.createdAt, updated, 'working', f.message);
  if (f.state === 'cancelled') return taskOf(a.id, a.createdAt, updated, 'cancelled', f.message);
  if (f.state === 'done')
    return { ...taskOf(a.id, a.createdAt, updated, 'completed', f.message), result: { resultType: 'complete', ...f.result } };
  const refusal = new SvcError('access_denied', {
    message: `Access denied: ${f.message}`,
    inBody: true,
    data: { gate: 'approval', approval_id: a.id, status: f.state },
  });
  return { ...taskOf(a.id, a.createdAt, updated, 'failed', f.message), error: toJsonRpcError(refusal, null).error };
}

/** The tasks/get handler over the approvals' follower (methods/approvals.ts). */
export function tasksGet(follow: (id: string, caller: ToolCaller, beside: ToolsBeside | undefined) => Promise<Followed>): MethodHandler {
  return async (params, ctx) => detailedTask(await follow(taskIdOf(params), ctx.toolCaller, ctx.toolSet ?? undefined).catch(unknownTask));
}
