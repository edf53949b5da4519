/** The rate-limit step: one Redis round trip, headers for the response, 429 on refusal. */
import { SvcError } from '@svc/errors';
import type { Logger } from '@svc/logger';
import type { ResolvedCaller } from '../auth/caller.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { rateLimitHeaders } from './rate-limiter.ts';

export interface AdmitDeps {
  limiter: RateLimiter;
  logger: Logger;
  onRejected?: (reason: 'rate_limited' | 'quota_exhausted') => void;
  onFairUseExceeded?: (workspace: string) => void;
  /** The clock the limiter uses, so the headers' seconds-left agree with its window. */
  now?: () => number;
}

export type Admit = (caller: ResolvedCaller, countsAsQuery: boolean) => Promise<Record<string, string | number>>;

export function createAdmit(deps: AdmitDeps): Admit {
  return async (caller, countsAsQuery) => {
    let decision;
    try {
      decision = await deps.limiter(caller.payer.workspace, caller.payer.plan, countsAsQuery);
    } catch (err) {
      throw new SvcError('service_unavailable', {
        message: 'Service temporarily unavailable: the rate limiter cannot reach its store',
        detail: String(err),
      });
    }
    const headers = rateLimitHeaders(decision, (deps.now ?? Date.now)());
    if (decision.overFairUse) {
      deps.onFairUseExceeded?.(caller.payer.workspace);
      deps.logger.warn('fair-use monthly query figure exceeded', {
        workspace: caller.payer.workspace,
        used: decision.monthlyUsed,
        figure: decision.monthlyLimit,
      });
    }
    if (decision.outcome === 'allowed') return headers;
    deps.onRejected?.(decision.outcome);
    throw new SvcError(decision.outcome, { headers: stringify(headers) });
  };
}

function stringify(h: Record<string, string | number>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) out[k] = String(v);
  return out;
}
