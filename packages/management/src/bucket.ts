/**
 * The management bucket (docs/management.md "REST"): management requests of a workspace, the
 * management API's and the dashboard's state-changing ones alike, counted in one bucket of their
 * own per minute, apart from tool traffic, with one atomic INCR and EXPIRE.
 */
import { K, WINDOWS, type Redis } from '@svc/accounts';

/** Management requests a workspace may make in a minute, on every plan (docs/management.md). */
export const MANAGEMENT_PER_MINUTE = 120;

export interface ManagementCount {
  limit: number;
  /** Requests counted this minute, this one included. */
  used: number;
  /** When the minute ends, Unix seconds. */
  reset: number;
  /** Seconds to wait when refused (used > limit); 0 when admitted. */
  retryAfter: number;
}

const COUNT = "local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('EXPIRE', KEYS[1], 120) end return n";

/** Counts one management request of `workspace`; throws the store's error when Redis does not answer. */
export async function countManagementRequest(redis: Redis, workspace: string, nowMs: number): Promise<ManagementCount> {
  const minute = WINDOWS.minute(nowMs);
  const used = Number(await redis.eval(COUNT, 1, K.rateManagement(workspace, minute)));
  const reset = (minute + 1) * 60;
  const retryAfter = used > MANAGEMENT_PER_MINUTE ? Math.max(1, reset - Math.floor(nowMs / 1000)) : 0;
  return { limit: MANAGEMENT_PER_MINUTE, used, reset, retryAfter };
}
