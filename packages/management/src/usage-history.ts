/**
 * Usage over time (docs/dashboard.md "Usage"): the gateway's day hashes (docs/redis-schema.md
 * "Usage"), read for the last `days` UTC days, today included, in one pipeline of at most
 * USAGE_HISTORY_DAYS commands.
 */
import { K, USAGE_HISTORY_DAYS, WINDOWS, type Redis } from '@svc/accounts';
import { ManagementError } from './types.ts';

const DAY_MS = 86_400_000;

/** The counts of each usage field (`key:<id>`, `user:<id>`, `tool:<name>`) per day, oldest day first. */
export interface DayCounts {
  /** The days as YYYY-MM-DD (UTC), oldest first; today is last. */
  days: string[];
  /** Field -> one count per day, in the order of `days`. */
  fields: Map<string, number[]>;
}

/** The `days` a caller asked for: a whole number from 1 to USAGE_HISTORY_DAYS (the default); else a 400 naming it. */
export function parseUsageDays(input: string | number | null | undefined): number {
  if (input === undefined || input === null || input === '') return USAGE_HISTORY_DAYS;
  const text = String(input);
  const days = /^\d{1,3}$/.test(text) ? Number(text) : NaN;
  if (!(days >= 1 && days <= USAGE_HISTORY_DAYS))
    throw new ManagementError(400, `The days must be a whole number from 1 to ${USAGE_HISTORY_DAYS}.`, 'days');
  return days;
}

/** The last `days` days' counts of a workspace, at time `t`. */
export async function readDayCounts(redis: Redis, workspace: string, t: number, days: number): Promise<DayCounts> {
  const stamps = Array.from({ length: days }, (_, i) => t - (days - 1 - i) * DAY_MS);
  const reads = redis.pipeline();
  for (const s of stamps) reads.hgetall(K.usageDay(workspace, WINDOWS.day(s)));
  const replies = (await reads.exec()) ?? [];
  const fields = new Map<string, number[]>();
  replies.forEach(([err, reply], i) => {
    if (err) throw err;
    for (const [field, value] of Object.entries(reply as Record<string, string>)) {
      let counts = fields.get(field);
      if (!counts) fields.set(field, (counts = new Array<number>(days).fill(0)));
      counts[i] = Number(value);
    }
  });
  return { days: stamps.map((s) => new Date(s).toISOString().slice(0, 10)), fields };
}
