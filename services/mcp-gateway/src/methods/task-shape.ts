/**
 * The Task of the MCP Tasks extension (SEP-2663 "Tasks") as svc makes one of a call held for an
 * approval (docs/approvals.md "As an MCP task"): what tools/call's CreateTaskResult, tasks/get and
 * tasks/cancel share.
 */
import { APPROVAL_TIMING } from '@svc/accounts';
import { SvcError } from '@svc/errors';
import { ToolFailure } from '../tools/types.ts';

/** How often a client should ask, ms: a person decides in minutes, not milliseconds. */
const TASK_POLL_INTERVAL_MS = 5_000;
/** How long a task may be kept after it was made: its decision window, its collection window, then its answer kept. */
const TASK_TTL_MS = APPROVAL_TIMING.decideWithinMs + APPROVAL_TIMING.collectWithinMs + APPROVAL_TIMING.keptMs;

const iso = (ms: number) => new Date(ms).toISOString();

/** The Task fields every state shares (SEP-2663 "Tasks"). */
export function taskOf(taskId: string, createdAt: number, updatedAt: number, status: string, statusMessage: string) {
  return {
    taskId,
    status,
    statusMessage,
    createdAt: iso(createdAt),
    lastUpdatedAt: iso(updatedAt),
    ttlMs: TASK_TTL_MS,
    pollIntervalMs: TASK_POLL_INTERVAL_MS,
  };
}

/** The task id of a tasks/* request, or the invalid_params refusal naming it. */
export function taskIdOf(params: Record<string, unknown>): string {
  const taskId = params['taskId'];
  if (typeof taskId !== 'string' || taskId.length === 0 || taskId.length > 100)
    throw new SvcError('invalid_params', { message: 'Invalid params: "taskId" must be a task id (a string)', inBody: true });
  return taskId;
}

/** An unknown task (another caller's included) as the JSON-RPC error the extension asks for. */
export function unknownTask(err: unknown): never {
  if (err instanceof ToolFailure) throw new SvcError('invalid_params', { message: `Invalid params: ${err.message}`, inBody: true });
  throw err;
}
