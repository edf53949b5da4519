/**
 * The gateway's admission (docs/operations.md "Rate limits"): one limiter batching each
 * workspace's charges, and what a charge's answer tells the metrics and the quota warning.
 */
import type { Tracer } from '@opentelemetry/api';
import type { Accounts, Redis } from '@svc/accounts';
import type { Config } from '@svc/config';
import type { Logger } from '@svc/logger';
import type { Metrics } from '../metrics.ts';
import { createAdmit } from './admit.ts';
import { createQuotaWarning } from './quota-warning.ts';
import { createLeasedLimiter } from './leased-limiter.ts';
import { createRateLimiter } from './rate-limiter.ts';

/** What admission reads. */
export interface GatewayAdmissionDeps {
  config: Pick<Config, 'rateLimitProfile' | 'rateLimitScale' | 'rateLimitMode'>;
  redis: Redis;
  accounts: Accounts;
  logger: Logger;
  metrics: Pick<Metrics, 'rejected' | 'fairUse'>;
  tracer: Tracer | null;
  now: () => number;
}

/** The admit function the rate-limit steps charge through. */
export function gatewayAdmission(deps: GatewayAdmissionDeps) {
  const { config, redis, logger, metrics, tracer, now } = deps;
  const limits = { profile: config.rateLimitProfile, scale: config.rateLimitScale, now };
  const leased = config.rateLimitMode === 'leased' ? createLeasedLimiter(redis, limits) : null;
  const limiter = leased ?? createRateLimiter(redis, { ...limits, tracer });
  const admit = createAdmit({
    limiter,
    logger,
    onRejected: (reason) => metrics.rejected.inc({ reason }),
    onFairUseExceeded: (plan) => metrics.fairUse.inc({ plan }),
    onQuotaThreshold: createQuotaWarning({ redis, accounts: deps.accounts, logger, now }),
    now,
  });
  /**
   * A draining replica's last call: the leased limiter gives its unused blocks back and writes the
   * usage it counted since its last call (docs/operations.md "Leased or exact limits"); the exact
   * limiter holds nothing.
   */
  const release = async (): Promise<void> => leased?.release();
  return Object.assign(admit, { release });
}
