/**
 * The management bucket (docs/management.md "REST"): management requests of a workspace, the
 * management API's and the dashboard's state-changing ones alike, counted per clock minute in one
 * bucket of their own, apart from tool traffic, on the one limiter (`@svc/limits` countInWindow:
 * one atomic INCR and EXPIRE; every request counts, refused or not).
 */
import { K, WINDOWS, type Redis } from '@svc/accounts';
import { BUCKETS, countInWindow } from '@svc/limits';

/** Management requests a workspace may make in a minute, on every plan (`@svc/limits` BUCKETS.management). */
export const MANAGEMENT_PER_MINUTE = BUCKETS.management.limit;

export interface ManagementCount {
  limit: number;
  /** Requests counted this minute, this one included. */
  used: number;
  /** When the minute ends, Unix seconds. */
  reset: number;
  /** Seconds to wait when refused (used > limit); 0 when admitted. */
  retryAfter: number;
}

/** Counts one management request of `workspace`; throws the store's error when Redis does not answer. */
export async function countManagementRequest(redis: Redis, workspace: string, nowMs: number): Promise<ManagementCount> {
  const minute = WINDOWS.minute(nowMs);
  const used = await countInWindow(redis, K.rateManagement(workspace, minute), BUCKETS.management);
  const reset = (minute + 1) * 60;
  const retryAfter = used > MANAGEMENT_PER_MINUTE ? Math.max(1, reset - Math.floor(nowMs / 1000)) : 0;
  return { limit: MANAGEMENT_PER_MINUTE, used, reset, retryAfter };
}
