/**
 * Requests per minute and monthly queries of the plan holder, checked and counted in Redis by one
 * Lua script (admit-script.ts, run by `@svc/limits` runScript; docs/operations.md "Rate limits") over keys sharing the workspace's hash tag (so it runs on Redis Cluster). Fixed
 * windows: the minute counter resets on the minute (X-RateLimit-Reset is that moment in Unix
 * seconds, as GitHub does), the monthly one at 00:00 UTC on the first of the month. A rejected
 * request increments no counter, so N replicas together admit exactly the limit.
 *
 * The same script keeps a key's own minute counter when the key has a limit below the plan's
 * (docs/management.md "Per-key limits") and the agent buckets' minute counters a charge spends
 * (docs/operations.md "Limits for agents": a person's, a person's through one client, a caller's
 * tool budget), and counts each admitted request in the month's usage hash and the day's, per
 * credential and per tool, so usage and its history cost no extra round trip.
 *
 * Concurrent requests of one workspace share one call (docs/gateway-pipeline.md "One Redis call
 * per batch"): charges made in the same turn of the event loop are sent together when it ends
 * (setImmediate), and the script decides them one after another, in arrival order, exactly as
 * separate calls would. A request never waits longer than that turn, and never makes more than
 * one Redis call.
 */
import { context, trace, type SpanContext, type Tracer } from '@opentelemetry/api';
import type { Redis } from '@svc/accounts';
import { K, USAGE_DAY_TTL_SECONDS, USAGE_FIELDS, WINDOWS } from '@svc/accounts';
import { runScript, shareLimit } from '@svc/limits';
import type { Plan, RateLimitProfile } from '@svc/policy';
import { planLimits } from '@svc/policy';
import { DPOP_REPLAY_TTL_SECONDS } from '../auth/dpop-proof.ts';
import { ADMIT } from './admit-script.ts';

/** The most charges one call decides (bounds the script's time in Redis). */
const MAX_BATCH = 256;

type PlanLimits = ReturnType<typeof planLimits>;

export type RateOutcome = 'allowed' | 'rate_limited' | 'quota_exhausted' | 'dpop_replayed';

export interface RateDecision {
  outcome: RateOutcome;
  /** The tighter of the plan's limit and the key's own (the one the headers describe). */
  limit: number;
  remaining: number;
  /** Unix seconds at which the minute window resets. */
  reset: number;
  /** Seconds to wait before retrying (rejections). */
  retryAfter: number;
  /** Monthly queries used after this request (when it counted one). */
  monthlyUsed: number | null;
  monthlyLimit: number | null;
  /** A fair-use plan went past its monthly figure (never blocked; flagged). */
  overFairUse: boolean;
  /** The refusal came from the key's own limit, not the workspace's. */
  byKeyLimit: boolean;
  /** The refusal came from this agent bucket (docs/operations.md "Limits for agents"). */
  byAgentBucket?: string;
}

/** An agent bucket a request spends: its name (K.rateAgentMinute), its share of the plan's minute, and the tokens spent. */
export interface AgentSpend {
  bucket: string;
  share: number;
  cost: number;
}

/** The request being charged: who pays, what it is, and which credential and tool it counts for. */
export interface Charge {
  workspace: string;
  plan: Plan;
  countsAsQuery: boolean;
  /** The usage hash's field for the credential (USAGE_FIELDS). */
  credential: string;
  /** The key's id and its own per-minute limit, when it has one. */
  keyLimit?: { keyId: string; perMinute: number } | null;
  /** A tools/call's tool name. */
  tool?: string | null;
  /**
   * The DPoP proof's replay key (K.dpopProof of the same workspace), set NX by the same call: a
   * proof seen before is refused and counts nothing (docs/auth-service.md "DPoP").
   */
  proofKey?: string | null;
  /** The agent buckets spent too, all of them or none (docs/operations.md "Limits for agents"). */
  agent?: readonly AgentSpend[] | null;
}

export interface RateLimiterOptions {
  profile: RateLimitProfile;
  scale: number;
  now?: () => number;
  /** Tracing on: each Redis call is a span linking the requests it decides (docs/operations.md "Traces"). */
  tracer?: Tracer | null;
}

interface Pending {
  charge: Charge;
  /** Tracing on: the span of the request's admit step, linked from the call's span. */
  span: SpanContext | null;
  keyLimit: { keyId: string; perMinute: number } | null;
  /** The charge's promise, settled from its four numbers of the script's output, or failed. */
  resolve: (decision: RateDecision) => void;
  reject: (err: Error) => void;
}

/** The charges of one workspace waiting for the end of this turn of the event loop. */
interface Batch {
  workspace: string;
  plan: Plan;
  pending: Pending[];
}

export function createRateLimiter(redis: Redis, options: RateLimiterOptions) {
  const now = options.now ?? Date.now;
  /** Batches by workspace; a charge under another plan than its workspace's batch sends that batch first. */
  const waiting = new Map<string, Batch>();
  const limitsByPlan = new Map<Plan, PlanLimits>();
  const limitsOf = (plan: Plan) => {
    let limits = limitsByPlan.get(plan);
    if (!limits) limitsByPlan.set(plan, (limits = planLimits(plan, options.profile, options.scale)));
    return limits;
  };

  const call = (batch: Batch, t: number): Promise<number[]> => admitCall(redis, batch, limitsOf(batch.plan), t);

  /**
   * Tracing on and a sampled request in the batch: the call is a span under the batch's first
   * sampled request, linking every sampled request (up to the SDK's link limit).
   */
  function traced(batch: Batch, t: number, tracer: Tracer): Promise<number[]> {
    const spans = batch.pending.flatMap((p) => (p.span ? [p.span] : []));
    const first = spans[0];
    const parent = first ? trace.setSpanContext(context.active(), first) : context.active();
    const span = tracer.startSpan(
      'redis admit',
      {
        links: spans.map((s) => ({ context: s })),
        attributes: { 'db.system.name': 'redis', 'db.operation.name': 'EVALSHA', 'svc.admit.batch_size': batch.pending.length },
      },
      parent,
    );
    return call(batch, t).finally(() => span.end());
  }

  function send(batch: Batch): void {
    const t = now();
    const tracer = options.tracer;
    const fail = (err: unknown) => batch.pending.forEach((p) => p.reject(err instanceof Error ? err : new Error(String(err))));
    // Every charge of the batch is answered, whatever throws, here or in Redis (a charge already
    // answered keeps its answer: a promise settles once).
    Promise.resolve()
      .then(() => (tracer && batch.pending.some((p) => p.span) ? traced(batch, t, tracer) : call(batch, t)))
      .then((out) => {
        // One plan per batch (a charge under another sends the batch first), so one set of limits.
        const limits = limitsOf(batch.plan);
        batch.pending.forEach((p, i) => p.resolve(decide(out, i * 4, limits, p, t)));
      })
      .catch(fail);
  }

  function flush(): void {
    for (const batch of waiting.values()) send(batch);
    waiting.clear();
  }

  /** Checks and counts one request (docs/contract.md "Rate limits"). */
  return function check(charge: Charge): Promise<RateDecision> {
    const limits = limitsOf(charge.plan);
    const keyLimit = charge.keyLimit && charge.keyLimit.perMinute < limits.requestsPerMinute ? charge.keyLimit : null;
    return new Promise((resolve, reject) => {
      let batch = waiting.get(charge.workspace);
      if (batch && batch.plan !== charge.plan) {
        // The workspace's plan changed within this turn: what came before goes first, in order.
        waiting.delete(charge.workspace);
        send(batch);
        batch = undefined;
      }
      if (!batch) {
        if (waiting.size === 0) setImmediate(flush);
        waiting.set(charge.workspace, (batch = { workspace: charge.workspace, plan: charge.plan, pending: [] }));
      }
      // Only a sampled request's span: a batch of requests the sampler dropped is no span at all.
      const span = options.tracer && trace.getActiveSpan()?.isRecording() ? (trace.getSpanContext(context.active()) ?? null) : null;
      batch.pending.push({ charge, keyLimit, resolve, reject, span });
      if (batch.pending.length >= MAX_BATCH) {
        waiting.delete(charge.workspace);
        send(batch);
      }
    });
  };
}

/**
 * One call of the script for a batch: its keys, then its arguments with alike charges as runs
 * (admit-script.ts spells their layout).
 */
function admitCall(redis: Redis, batch: Batch, limits: PlanLimits, t: number): Promise<number[]> {
  const minute = WINDOWS.minute(t);
  const month = WINDOWS.month(t);
  const keys = [
    K.rateMinute(batch.workspace, minute),
    K.rateMonth(batch.workspace, month),
    K.usage(batch.workspace, month),
    K.usageDay(batch.workspace, WINDOWS.day(t)),
  ];
  const args: (string | number)[] = [
    limits.requestsPerMinute,
    120,
    limits.monthlyQueries ?? -1,
    limits.fairUse ? '1' : '0',
    monthTtl(t),
    0,
    USAGE_DAY_TTL_SECONDS,
    DPOP_REPLAY_TTL_SECONDS,
  ];
  const keyMinute = counterIndexes(keys, (keyId) => K.rateKeyMinute(batch.workspace, keyId, minute));
  const agentMinute = counterIndexes(keys, (bucket) => K.rateAgentMinute(batch.workspace, bucket, minute));
  let runs = 0;
  /** Where the last run's fields start in `args` (its count is the argument before). */
  let last = 0;
  for (const { charge, keyLimit } of batch.pending) {
    const keyIndex = keyLimit ? keyMinute(keyLimit.keyId) : 0;
    // A proof is one charge's own: its run is never joined.
    const proofIndex = charge.proofKey ? keys.push(charge.proofKey) : 0;
    const fields: (string | number)[] = [
      charge.countsAsQuery ? '1' : '0',
      keyIndex,
      keyLimit ? keyLimit.perMinute : -1,
      charge.credential,
      charge.tool ? USAGE_FIELDS.tool(charge.tool) : '',
      proofIndex,
      ...agentFields(charge.agent, agentMinute, limits),
    ];
    // The run before, if this charge is alike, counts one more (a run with a proof differs in it).
    if (runs > 0 && proofIndex === 0 && sameFields(args, last, fields)) (args[last - 1] as number)++;
    else {
      runs++;
      args.push(1);
      last = args.length;
      args.push(...fields);
    }
  }
  args[5] = runs;
  return runScript(redis, ADMIT, keys, args) as Promise<number[]>;
}

/**
 * The index in Lua's KEYS (from 1) of a counter the batch shares (a key's own minute by the key's
 * id, an agent bucket's by its name), each in `keys` once however many charges spend it.
 */
function counterIndexes(keys: string[], keyOf: (id: string) => string): (id: string) => number {
  const known = new Map<string, number>();
  return (id) => {
    let index = known.get(id);
    // push returns the new length: the pushed key's position counted from 1.
    if (index === undefined) known.set(id, (index = keys.push(keyOf(id))));
    return index;
  };
}

/** A run's agent fields: how many buckets, then each one's counter index, limit and cost. */
function agentFields(spends: readonly AgentSpend[] | null | undefined, index: (bucket: string) => number, limits: PlanLimits) {
  const fields: number[] = [spends?.length ?? 0];
  for (const s of spends ?? []) fields.push(index(s.bucket), shareLimit(limits.requestsPerMinute, s.share), s.cost);
  return fields;
}

/** Whether the last run of `args`, its fields from `at` to the end, has exactly `fields`. */
function sameFields(args: readonly (string | number)[], at: number, fields: readonly (string | number)[]): boolean {
  if (args.length - at !== fields.length) return false;
  for (let i = 0; i < fields.length; i++) if (args[at + i] !== fields[i]) return false;
  return true;
}

/** Seconds the month's counters live: to the 1st of next month (UTC), plus a day. */
export function monthTtl(t: number): number {
  return Math.ceil(monthEnd(t) - t / 1000) + 86_400;
}

/** The Unix second the month of `t` ends (UTC). */
export function monthEnd(t: number): number {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
}

/** The decision on one charge from its four numbers in the script's output, starting at `at`. */
function decide(out: number[], at: number, limits: PlanLimits, { charge, keyLimit }: Pending, t: number): RateDecision {
  const status = out[at]!;
  const used = out[at + 1]!;
  const q = out[at + 2]!;
  const kused = out[at + 3]!;
  const reset = (WINDOWS.minute(t) + 1) * 60;
  const outcome: RateOutcome =
    status === 1 ? 'allowed' : status === 2 ? 'quota_exhausted' : status === 4 ? 'dpop_replayed' : 'rate_limited';
  // 5 + i: the charge's i-th agent bucket refused it (admit-script.ts).
  const agent = status >= 5 ? charge.agent?.[status - 5] : undefined;
  const planRemaining = Math.max(0, limits.requestsPerMinute - used);
  const keyRemaining = keyLimit ? Math.max(0, keyLimit.perMinute - Math.max(0, kused)) : Infinity;
  const decision: RateDecision = {
    outcome,
    limit: agent ? shareLimit(limits.requestsPerMinute, agent.share) : keyLimit ? keyLimit.perMinute : limits.requestsPerMinute,
    remaining: agent ? 0 : Math.min(planRemaining, keyRemaining),
    reset,
    retryAfter: Math.max(1, Math.ceil((outcome === 'quota_exhausted' ? monthEnd(t) : reset) - t / 1000)),
    monthlyUsed: q >= 0 ? q : null,
    monthlyLimit: limits.monthlyQueries,
    overFairUse: limits.fairUse && limits.monthlyQueries !== null && q > limits.monthlyQueries,
    byKeyLimit: status === 3,
  };
  if (agent) decision.byAgentBucket = agentBucketKind(agent.bucket);
  return decision;
}

/** An agent bucket's kind, the prefix of its name (`p`, `c`, `t`: admit.ts `agentSpends`), which names it in a refusal. */
export function agentBucketKind(bucket: string): string {
  return bucket.slice(0, bucket.indexOf(':'));
}

/** A limiter's charge: decided at once when it can be (a leased block held its tokens), else when its call is answered. */
export type RateLimiter = (charge: Charge) => RateDecision | Promise<RateDecision>;

/** The response headers of a decision: GitHub's X-RateLimit-* and the IETF RateLimit fields. */
export function rateLimitHeaders(d: RateDecision, nowMs: number = Date.now()): Record<string, string | number> {
  const secondsLeft = Math.max(0, Math.ceil(d.reset - nowMs / 1000));
  const h: Record<string, string | number> = {
    'X-RateLimit-Limit': d.limit,
    'X-RateLimit-Remaining': d.remaining,
    'X-RateLimit-Reset': d.reset,
    'RateLimit-Policy': `"minute";q=${d.limit};w=60`,
    RateLimit: `"minute";r=${d.remaining};t=${secondsLeft}`,
  };
  if (d.outcome !== 'allowed') h['Retry-After'] = d.retryAfter;
  return h;
}
