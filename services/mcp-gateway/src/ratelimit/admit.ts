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
      decision = await deps.limiter(caller.workspace, caller.plan, countsAsQuery);
    } catch (err) {
      throw new SvcError('service_unavailable', {
        message: 'Service temporarily unavailable: the rate limiter cannot reach its store',
        detail: String(err),
      });
    }
    const headers = rateLimitHeaders(decision, (deps.now ?? Date.now)());
    if (caller.legacy) headers['Deprecation'] = LEGACY_DEPRECATION;
    if (decision.overFairUse) {
      deps.onFairUseExceeded?.(caller.workspace);
      deps.logger.warn('fair-use monthly query figure exceeded', {
        workspace: caller.workspace,
        used: decision.monthlyUsed,
        figure: decision.monthlyLimit,
      });
    }
    if (decision.outcome === 'allowed') return headers;
    deps.onRejected?.(decision.outcome);
    throw new SvcError(decision.outcome, { headers: stringify(headers) });
  };
}

/** RFC 9745 Deprecation: the moment the rlm_ names were deprecated (2026-01-01T00:00:00Z). */
export const LEGACY_DEPRECATION = '@1767225600';

function stringify(h: Record<string, string | number>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) out[k] = String(v);
  return out;
}
