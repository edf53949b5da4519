/**
 * tasks/cancel (MCP Tasks extension, SEP-2663 "Cancellation"): the caller withdraws its own call
 * held for an approval before it runs (docs/approvals.md "As an MCP task").
 */
import type { ToolCaller } from '../tools/types.ts';
import { taskIdOf, unknownTask } from './task-shape.ts';
import type { MethodHandler } from './types.ts';

/** tasks/cancel (SEP-2663 "Cancellation"): an empty acknowledgement; the task reads `cancelled` when it had not run. */
export function tasksCancel(cancel: (id: string, caller: ToolCaller) => Promise<void>): MethodHandler {
  return async (params, ctx) => {
    await cancel(taskIdOf(params), ctx.toolCaller).catch(unknownTask);
    return {};
  };
}
