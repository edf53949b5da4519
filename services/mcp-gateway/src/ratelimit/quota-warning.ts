/**
 * The quota-nearly-spent event (docs/webhooks.md "quota.warning"): when a request's count lands a
 * workspace exactly on 80 % or 100 % of its monthly queries, one audit entry `quota.warning` is
 * appended, once per workspace, month and threshold (a SET NX guard). On the request path this is
 * one number comparison; the rest runs after the response is decided and never delays it.
 */
import type { Accounts, Redis } from '@svc/accounts';
import type { Logger } from '@svc/logger';

/** The thresholds, in percent of the monthly queries, that append one `quota.warning` each. */
export const QUOTA_WARNING_PERCENTS = [80, 100] as const;
/** The guard outlives its month by a few days, then goes. */
const GUARD_TTL_SECONDS = 40 * 24 * 3600;

/** The threshold this count lands on exactly, if any (the counter goes up one at a time, so exactly one request lands on it). */
export function quotaThresholdCrossed(used: number | null, limit: number | null): number | null {
  if (used === null || limit === null || limit <= 0) return null;
  for (const pct of QUOTA_WARNING_PERCENTS) if (used === Math.ceil((limit * pct) / 100)) return pct;
  return null;
}

export interface QuotaWarningDeps {
  redis: Redis;
  accounts: Accounts;
  logger: Logger;
  now: () => number;
}

/** Appends the threshold's entry unless this month's was appended already; failures are logged, never thrown. */
export function createQuotaWarning(deps: QuotaWarningDeps) {
  return (workspace: string, percent: number, used: number, limit: number): void => {
    const month = new Date(deps.now()).toISOString().slice(0, 7);
    const guard = `svc:quota-warned:{${workspace}}:${month}:${percent}`;
    void (async () => {
      if ((await deps.redis.set(guard, '1', 'EX', GUARD_TTL_SECONDS, 'NX')) !== 'OK') return;
      await deps.accounts.audit.record({
        workspace,
        actor: 'svc',
        action: 'quota.warning',
        target: `workspace:${workspace}`,
        source: 'svc',
        requestId: `quota-${month}-${percent}`,
        detail: { percent: String(percent), used: String(used), limit: String(limit), month },
      });
    })().catch((err: unknown) => deps.logger.warn('quota warning not recorded', { workspace, percent, err }));
  };
}
