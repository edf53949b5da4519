/**
 * The Task of the MCP Tasks extension (SEP-2663 "Tasks") as svc makes one of a call held for an
 * approval (docs/approvals.md "As an MCP task"): what tools/call's CreateTaskResult and tasks/get
 * share.
 */
import { APPROVAL_TIMING } from '@svc/accounts';

/** How often a client should ask, ms: a person decides in minutes, not milliseconds. */
export const TASK_POLL_INTERVAL_MS = 5_000;
/** How long a task may be kept after it was made: its decision window, its collection window, then its answer kept. */
export const TASK_TTL_MS = APPROVAL_TIMING.decideWithinMs + APPROVAL_TIMING.collectWithinMs + APPROVAL_TIMING.keptMs;

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
