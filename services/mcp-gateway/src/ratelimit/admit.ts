/**
 * The rate-limit step: at most one Redis round trip (shared by a batch), headers for the response,
 * 429 on refusal.
 */
import { USAGE_FIELDS } from '@svc/accounts';
import { SvcError } from '@svc/errors';
import { BUCKETS } from '@svc/limits';
import type { Logger } from '@svc/logger';
import type { ResolvedCaller } from '../auth/caller.ts';
import { replayed } from '../auth/dpop-proof.ts';
import { quotaThresholdCrossed } from './quota-warning.ts';
import type { AgentSpend, RateDecision, RateLimiter } from './rate-limiter.ts';
import { rateLimitHeaders } from './rate-limiter.ts';

export interface AdmitDeps {
  limiter: RateLimiter;
  logger: Logger;
  onRejected?: (reason: 'rate_limited' | 'quota_exhausted') => void;
  /** Called with the payer's plan: a metric label takes few values (docs/security.md "Bounds"); the log names the workspace. */
  onFairUseExceeded?: (plan: string) => void;
  /** A counted query landed the workspace on a quota threshold (quota-warning.ts): appends its audit entry, off the request path. */
  onQuotaThreshold?: (workspace: string, percent: number, used: number, limit: number) => void;
  /** The clock the limiter uses, so the headers' seconds-left agree with its window. */
  now?: () => number;
}

/**
 * What is admitted: a tools/call names its tool, whether it counts a monthly query, and what it
 * costs. The rate-limit headers of an admitted charge, at once when the limiter decided it at once
 * (no promise, no microtask turn), else when its Redis call is answered; a refusal is thrown.
 */
export type Admit = (
  caller: ResolvedCaller,
  call: { countsAsQuery: boolean; tool: string | null; cost?: number; proofKey?: string | null },
) => Record<string, string | number> | Promise<Record<string, string | number>>;

/**
 * The agent buckets a request spends (docs/operations.md "Limits for agents"): a person's requests
 * (OAuth tokens and personal keys alike), and the same person's through one OAuth client, every
 * request counted — initialize, listings and notifications too, since a reconnect storm is made of
 * them; and a tools/call spends its tool's cost of its caller's tool budget, which nothing else
 * touches. A personal key is the person acting, not a client of theirs: it spends the person's
 * bucket only, so one person with `svc` and a personal key keeps the whole minute.
 */
function agentSpends(caller: ResolvedCaller, tool: string | null, cost: number): AgentSpend[] {
  const spends: AgentSpend[] = [];
  const who = caller.type === 'user' ? `u-${caller.id}` : `k-${caller.session}`;
  if (caller.type === 'user') {
    spends.push({ bucket: `p:${who}`, share: BUCKETS.agentPerson.share, cost: 1 });
    if (caller.clientId) spends.push({ bucket: `c:${who}:${caller.clientId}`, share: BUCKETS.agentClient.share, cost: 1 });
  }
  if (tool !== null) spends.push({ bucket: `t:${who}`, share: BUCKETS.agentTools.share, cost });
  return spends;
}

/** What an agent bucket's refusal says (its name's prefix in `agentSpends`). */
const AGENT_REFUSALS: Record<string, { what: string; remedy: string }> = {
  p: { what: 'you may make', remedy: 'Wait until the window resets (Retry-After).' },
  c: {
    what: 'one client of yours may make',
    remedy: 'Wait until the window resets (Retry-After); reuse one session instead of reconnecting.',
  },
  t: { what: 'your tool calls may spend', remedy: 'Wait until the window resets (Retry-After); costly tools spend more of the budget.' },
};

const storeUnreachable = (err: unknown): never => {
  throw new SvcError('service_unavailable', {
    message: 'Service temporarily unavailable: the rate limiter cannot reach its store',
    detail: String(err),
  });
};

export function createAdmit(deps: AdmitDeps): Admit {
  /** The headers of an admitted charge, or the refusal it got. */
  const answered = (caller: ResolvedCaller, decision: RateDecision): Record<string, string | number> => {
    const headers = rateLimitHeaders(decision, (deps.now ?? Date.now)());
    const crossed = quotaThresholdCrossed(decision.monthlyUsed, decision.monthlyLimit);
    if (crossed !== null) deps.onQuotaThreshold?.(caller.payer.workspace, crossed, decision.monthlyUsed!, decision.monthlyLimit!);
    if (decision.overFairUse) {
      deps.onFairUseExceeded?.(caller.payer.plan);
      deps.logger.warn('fair-use monthly query figure exceeded', {
        workspace: caller.payer.workspace,
        used: decision.monthlyUsed,
        figure: decision.monthlyLimit,
      });
    }
    if (decision.outcome === 'allowed') return headers;
    // RFC 9449 §11.1: the proof was presented before; nothing was counted.
    if (decision.outcome === 'dpop_replayed') throw replayed();
    deps.onRejected?.(decision.outcome);
    const agent = decision.byAgentBucket ? AGENT_REFUSALS[decision.byAgentBucket] : undefined;
    throw new SvcError(decision.outcome, {
      headers: { ...stringify(headers), ...refusalHeaders(decision) },
      data: limitData(decision),
      ...(agent
        ? { message: `Rate limit exceeded: ${agent.what} ${decision.limit} per minute`, remedy: agent.remedy }
        : decision.byKeyLimit
          ? {
              message: `Rate limit exceeded: this key may make ${decision.limit} requests per minute`,
              remedy: "Wait until the window resets (Retry-After), or ask a project admin to raise the key's own limit.",
            }
          : {}),
    });
  };
  return (caller, call) => {
    let decision: RateDecision | Promise<RateDecision>;
    try {
      decision = deps.limiter({
        workspace: caller.payer.workspace,
        plan: caller.payer.plan,
        countsAsQuery: call.countsAsQuery,
        credential: caller.keyHash ? USAGE_FIELDS.key(caller.session) : USAGE_FIELDS.user(caller.id),
        keyLimit: caller.keyLimit ? { keyId: caller.session, perMinute: caller.keyLimit } : null,
        tool: call.tool,
        proofKey: call.proofKey ?? null,
        agent: agentSpends(caller, call.tool, call.cost ?? 1),
      });
    } catch (err) {
      return storeUnreachable(err);
    }
    // A charge the limiter decided at once (a leased block held its tokens) is answered at once.
    if (decision instanceof Promise) return decision.then((d) => answered(caller, d), storeUnreachable);
    return answered(caller, decision);
  };
}

/**
 * A limit refusal's data in the shape of the MCP draft "Standardize Rate-Limiting Errors" (as
 * written in August 2026; docs/errors.md "Limit refusals"): when to retry in milliseconds, and the
 * limit and what remains of it. The code stays svc's own (-31020, -31021): the draft's -32023 lies
 * in the range the specification reserves and is not assigned yet.
 */
function limitData(d: RateDecision): Record<string, number> {
  const retryAfterMs = d.retryAfter * 1000;
  // The monthly quota's figures, when it is the quota that refused.
  if (d.outcome === 'quota_exhausted' && d.monthlyLimit !== null)
    return { retryAfterMs, limit: d.monthlyLimit, remaining: Math.max(0, d.monthlyLimit - (d.monthlyUsed ?? d.monthlyLimit)) };
  return { retryAfterMs, limit: d.limit, remaining: d.remaining };
}

/** The draft's integer headers, beside the structured RateLimit fields every answer carries. */
function refusalHeaders(d: RateDecision): Record<string, string> {
  const data = limitData(d);
  return { 'RateLimit-Limit': String(data['limit']), 'RateLimit-Remaining': String(data['remaining']) };
}

function stringify(h: Record<string, string | number>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) out[k] = String(v);
  return out;
}
