/**
 * The leased rate limiter, the gateway's default (docs/operations.md "Leased or exact limits"):
 * the same buckets as the exact limiter (rate-limiter.ts) — the workspace's minute and month, a
 * key's own minute, the agent buckets — but each replica holds a block of each (bucket, window)
 * reserved in Redis (`@svc/limits` `Lease`, `LEASE`) and admits locally while its block lasts. A
 * charge that finds a block spent, or brings a DPoP proof to claim, waits for the end of this turn
 * of the event loop, when its workspace's waiting charges are sent in one call that refills the
 * blocks they need, claims their proofs and writes the usage counted since the last call; they are
 * then decided in arrival order from the refilled blocks. One call per workspace is in flight at a
 * time, and it holds up only the charges it answers: a call gives up the blocks it refills until
 * it returns (Lease.surrender), and a charge whose blocks hold its tokens is decided at once, call
 * or no call. A waiting charge is refused only by a block its own call refilled (Redis had no more
 * to grant); one short of another block, whose tokens went meanwhile to charges decided at once,
 * waits for the next call. Usage counts (the month's and the day's hash) are written with the next
 * call, or within a second by the tick that also gives idle blocks back.
 */
import type { Redis } from '@svc/accounts';
import { K, USAGE_DAY_TTL_SECONDS, USAGE_FIELDS, WINDOWS, wasNotSent } from '@svc/accounts';
import { LEASE, LEASE_SIZING, Lease, runScript, shareLimit, type LeaseSizing } from '@svc/limits';
import type { Plan, RateLimitProfile } from '@svc/policy';
import { planLimits } from '@svc/policy';
import { DPOP_REPLAY_TTL_SECONDS } from '../auth/dpop-proof.ts';
import { agentBucketKind, monthEnd, monthTtl, type AgentSpend, type Charge, type RateDecision, type RateOutcome } from './rate-limiter.ts';

/** The most charges one call decides (bounds the script's time in Redis). */
const MAX_BATCH = 256;
/**
 * The most blocks one call gives back, and the most usage fields it writes: a call's arguments
 * stay a few thousand whatever a workspace holds (a block for each of 100,000 callers seen this
 * minute made one call of 600,000 arguments, past what a function call can be given). The rest go
 * with the next call: the next tick's, or the drain's next.
 */
const MAX_GIVE_BACKS = 256;
const MAX_TALLIES = 2_048;
/** A block untouched this long is given back by the tick. */
const IDLE_MS = 1_000;
/** The tick: usage written, idle blocks given back, long-idle workspaces forgotten. */
const TICK_MS = 1_000;
const FORGET_MS = 120_000;
/** The month's budget of a plan without a monthly limit (fair use or none): never reached. */
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

interface Waiting {
  charge: Charge;
  keyLimit: { keyId: string; perMinute: number } | null;
  resolve: (d: RateDecision) => void;
  reject: (err: Error) => void;
  /** Its proof was claimed by an earlier call (the charge waits again after a window's edge). */
  claimed: boolean;
}

/** One workspace's state in this replica. */
interface Payer {
  workspace: string;
  plan: Plan;
  minute: Lease;
  month: Lease;
  keys: Map<string, Lease>;
  /** Agent buckets by name (docs/operations.md "Limits for agents"). */
  agents: Map<string, Lease>;
  /** Usage fields counted locally and not yet written. */
  usage: Map<string, number>;
  waiting: Waiting[];
  inflight: boolean;
  seen: number;
}

export interface LeasedLimiterOptions {
  profile: RateLimitProfile;
  scale: number;
  now?: () => number;
  sizing?: LeaseSizing;
  /** The tick's period (0: no tick; tests drive `release`). */
  tickMs?: number;
}

/** The leased limiter: `check` as the exact one's, `release` gives every block back and writes the usage (drain). */
export function createLeasedLimiter(redis: Redis, options: LeasedLimiterOptions) {
  const now = options.now ?? Date.now;
  const sizing = options.sizing ?? LEASE_SIZING;
  const payers = new Map<string, Payer>();
  const dirty = new Set<Payer>();
  const limitsOf = limitsByPlan(options.profile, options.scale);
  const clock = windowClock();
  const tickClock = (t: number) => clock.at(t);
  const ctx: Ctx = { redis, sizing, clock, limitsOf };

  function payerOf(charge: Charge): Payer {
    let p = payers.get(charge.workspace);
    if (!p) payers.set(charge.workspace, (p = newPayer(charge, sizing)));
    if (p.plan !== charge.plan) {
      // Another plan, other limits: the blocks held under the old ones lapse (false denials at most).
      p.plan = charge.plan;
      p.minute.roll(-1);
      p.month.roll(-1);
      p.keys.clear();
      p.agents.clear();
    }
    roll(clock, p);
    return p;
  }

  const { running, track } = callsOut();

  function send(p: Payer): void {
    const batch = p.waiting.splice(0, MAX_BATCH);
    p.inflight = true;
    const sentIn = { minute: p.minute.window, month: p.month.window };
    const out = call(ctx, p, batch, never)
      .then(({ claimed, refilled }) => {
        const t = now();
        tickClock(t);
        // At a window's edge the refill was for the old window: who is not decided waits again.
        // The edge may have been crossed while the call was out (another charge rolled the
        // blocks then), so the windows are compared with those the call was sent in.
        roll(clock, p);
        const rolled = p.minute.window !== sentIn.minute || p.month.window !== sentIn.month;
        // Redis's answer is final for the blocks this call refilled, in the window it was sent in.
        decideAnswered(ctx, p, batch, claimed, t, (lease) => !rolled && refilled.has(lease));
      })
      .catch((err: unknown) => batch.forEach((w) => w.reject(err instanceof Error ? err : new Error(String(err)))))
      .finally(() => settled(p));
    track(out);
  }

  /** The call of `p` is answered: the charges that came meanwhile go in the next. */
  function settled(p: Payer): void {
    p.inflight = false;
    if (p.waiting.length > 0) schedule(p);
  }

  function flush(): void {
    for (const p of dirty) send(p);
    dirty.clear();
  }

  function schedule(p: Payer): void {
    if (dirty.size === 0) setImmediate(flush);
    dirty.add(p);
  }

  /**
   * Gives idle blocks back and writes usage, a bounded call per workspace; forgets workspaces idle
   * for long. Whether it sent any call and every one was answered.
   */
  async function tick(all: boolean): Promise<boolean> {
    const t = now();
    tickClock(t);
    const calls: Promise<boolean>[] = [];
    for (const p of payers.values()) {
      if (p.inflight || p.waiting.length > 0) continue;
      const idle = givingBack(p, clock, t, all);
      if (idle) {
        p.inflight = true;
        const out = call(ctx, p, [], idle)
          .then(
            () => true,
            () => false,
          )
          .finally(() => settled(p));
        track(out);
        calls.push(out);
      } else if (t - p.seen > FORGET_MS) payers.delete(p.workspace);
    }
    const answered = await Promise.all(calls);
    return answered.length > 0 && answered.every(Boolean);
  }
  const tickMs = options.tickMs ?? TICK_MS;
  const timer = tickMs > 0 ? setInterval(() => void tick(false), tickMs) : null;
  timer?.unref();

  /** Checks and counts one request (docs/contract.md "Rate limits"). */
  function check(charge: Charge): RateDecision | Promise<RateDecision> {
    const t = now();
    tickClock(t);
    const limits = limitsOf(charge.plan);
    const keyLimit = charge.keyLimit && charge.keyLimit.perMinute < limits.requestsPerMinute ? charge.keyLimit : null;
    const p = payerOf(charge);
    p.seen = t;
    const w: Waiting = { charge, keyLimit, resolve: noop, reject: noop, claimed: false };
    if (!charge.proofKey) {
      const d = decide(ctx, p, w, t, never);
      if (d) return d;
    }
    return new Promise((resolve, reject) => {
      w.resolve = resolve;
      w.reject = reject;
      p.waiting.push(w);
      if (!p.inflight) schedule(p);
    });
  }

  /**
   * Gives every block back and writes the usage counted (a draining replica's last call). The
   * charges waiting to be sent and the calls out are settled first, so what they admit is counted
   * and what is left of their blocks given back.
   */
  async function release(): Promise<void> {
    if (timer) clearInterval(timer);
    while (running.size > 0 || dirty.size > 0) {
      flush();
      await Promise.all(running);
    }
    // A bounded call at a time, until nothing is held or written, or a call fails (Redis gone).
    while (await tick(true));
  }

  /** Stops the tick without giving anything back: a replica killed mid-block (tests). */
  function abandon(): void {
    if (timer) clearInterval(timer);
  }

  /** The unused tokens this replica holds for `workspace` in the current windows (what others may be falsely denied). */
  function held(workspace: string): { minute: number; month: number } {
    const p = payers.get(workspace);
    if (!p) return { minute: 0, month: 0 };
    tickClock(now());
    roll(clock, p);
    return { minute: p.minute.left, month: p.month.left };
  }

  return Object.assign(check, { release, abandon, held });
}

/** The calls out of a limiter (each settles, never rejects): a drain waits for them (release). */
function callsOut() {
  const running = new Set<Promise<unknown>>();
  const track = (out: Promise<unknown>): void => {
    running.add(out);
    void out.then(() => running.delete(out));
  };
  return { running, track };
}

/** The plans' limits under one profile and scale, computed once a plan. */
function limitsByPlan(profile: RateLimitProfile, scale: number): (plan: Plan) => ReturnType<typeof planLimits> {
  const known = new Map<Plan, ReturnType<typeof planLimits>>();
  return (plan) => {
    let limits = known.get(plan);
    if (!limits) known.set(plan, (limits = planLimits(plan, profile, scale)));
    return limits;
  };
}

/**
 * What the tick gives back of `p` at `t`: which blocks are idle (all of them with `all`, the drain),
 * or null when it has nothing to give back or write. The blocks of an ended minute are dropped:
 * they lapsed with their counters.
 */
function givingBack(p: Payer, clock: WindowClock, t: number, all: boolean): ((l: Lease) => boolean) | null {
  for (const m of [p.keys, p.agents]) for (const [name, l] of m) if (l.window !== clock.minute) m.delete(name);
  const idle = (l: Lease) => l.left > 0 && (all || t - l.lastTake > IDLE_MS);
  const anyIdle = (m: Map<string, Lease>) => {
    for (const l of m.values()) if (idle(l)) return true;
    return false;
  };
  return p.usage.size > 0 || idle(p.minute) || idle(p.month) || anyIdle(p.keys) || anyIdle(p.agents) ? idle : null;
}

function newPayer(charge: Charge, sizing: LeaseSizing): Payer {
  return {
    workspace: charge.workspace,
    plan: charge.plan,
    minute: new Lease(sizing),
    month: new Lease(sizing),
    keys: new Map(),
    agents: new Map(),
    usage: new Map(),
    waiting: [],
    inflight: false,
    seen: 0,
  };
}

/** What the module's functions share with one limiter. */
interface Ctx {
  redis: Redis;
  sizing: LeaseSizing;
  clock: WindowClock;
  limitsOf: (plan: Plan) => ReturnType<typeof planLimits>;
}

type WindowClock = ReturnType<typeof windowClock>;

/** The window names, computed once a minute (a month and a day change only on a minute's edge). */
function windowClock() {
  const clock = {
    minute: -1,
    month: '',
    monthNo: 0,
    day: '',
    monthTtl: 0,
    at(t: number): void {
      const minute = WINDOWS.minute(t);
      if (minute === clock.minute) return;
      clock.minute = minute;
      clock.month = WINDOWS.month(t);
      clock.monthNo = Number(clock.month);
      clock.day = WINDOWS.day(t);
      clock.monthTtl = monthTtl(t);
    },
  };
  return clock;
}

/** A new minute or month: the old window's blocks lapse with its counters. Whether one did. */
function roll(clock: WindowClock, p: Payer): boolean {
  const rolled = p.minute.window !== clock.minute || p.month.window !== clock.monthNo;
  if (p.minute.window !== clock.minute) p.minute.roll(clock.minute);
  if (p.month.window !== clock.monthNo) p.month.roll(clock.monthNo);
  return rolled;
}

/** A minute bucket's lease in `map` (a key's own, an agent bucket), rolled to this minute. */
function minuteLease(ctx: Ctx, map: Map<string, Lease>, name: string): Lease {
  let lease = map.get(name);
  if (!lease) map.set(name, (lease = new Lease(ctx.sizing)));
  if (lease.window !== ctx.clock.minute) lease.roll(ctx.clock.minute);
  return lease;
}

/** The agent bucket of `spends` whose block has fewer tokens than the charge spends, if any. */
function shortAgent(ctx: Ctx, p: Payer, spends: readonly AgentSpend[]): AgentSpend | null {
  for (const s of spends) if (minuteLease(ctx, p.agents, s.bucket).left < s.cost) return s;
  return null;
}

/**
 * Decides the charges of a call just answered (`claimed`: its answers to their proofs); those it
 * cannot decide yet wait again, first in line.
 */
function decideAnswered(ctx: Ctx, p: Payer, batch: Waiting[], claimed: number[], t: number, final: (spent: Lease) => boolean): void {
  const again: Waiting[] = [];
  let proof = 0;
  for (const w of batch) {
    if (w.charge.proofKey && !w.claimed && claimed[proof++] === 0) {
      w.resolve(refusal('dpop_replayed', 0, 0, 0, null, false));
      continue;
    }
    w.claimed = true;
    const d = decide(ctx, p, w, t, final);
    if (d) w.resolve(d);
    else again.push(w);
  }
  p.waiting.unshift(...again);
}

function tally(p: Payer, field: string): void {
  p.usage.set(field, (p.usage.get(field) ?? 0) + 1);
}

/**
 * Decides one charge from the blocks held: allowed (tokens taken, usage counted) or the bucket
 * that refuses; null when a block is spent and Redis's answer about it is not `final` (the charge
 * waits for a refill).
 */
function decide(ctx: Ctx, p: Payer, w: Waiting, t: number, final: (spent: Lease) => boolean): RateDecision | null {
  const { charge, keyLimit } = w;
  const limits = ctx.limitsOf(p.plan);
  const key = keyLimit ? minuteLease(ctx, p.keys, keyLimit.keyId) : null;
  const spends = charge.agent ?? null;
  let outcome: RateOutcome | null = null;
  let spent: Lease = p.minute;
  let byKey = false;
  let agent: AgentSpend | null = null;
  if (p.minute.left === 0) outcome = 'rate_limited';
  else if (key && key.left === 0) {
    outcome = 'rate_limited';
    spent = key;
    byKey = true;
  } else if (spends && (agent = shortAgent(ctx, p, spends))) {
    outcome = 'rate_limited';
    spent = p.agents.get(agent.bucket)!;
  } else if (charge.countsAsQuery && p.month.left === 0) {
    outcome = 'quota_exhausted';
    spent = p.month;
  }
  if (outcome !== null && !final(spent)) return null;
  const reset = (ctx.clock.minute + 1) * 60;
  const limit = agent ? shareLimit(limits.requestsPerMinute, agent.share) : keyLimit ? keyLimit.perMinute : limits.requestsPerMinute;
  if (outcome !== null) {
    const until = outcome === 'quota_exhausted' ? monthEnd(t) : reset;
    const d = refusal(outcome, limit, reset, Math.max(1, Math.ceil(until - t / 1000)), limits.monthlyQueries, byKey);
    if (agent) d.byAgentBucket = agentBucketKind(agent.bucket);
    return d;
  }
  p.minute.take(t);
  if (key) key.take(t);
  if (spends) for (const s of spends) p.agents.get(s.bucket)!.take(t, s.cost);
  const q = charge.countsAsQuery ? p.month.take(t) : 0;
  tally(p, charge.credential);
  if (charge.tool) tally(p, USAGE_FIELDS.tool(charge.tool));
  const planLeft = Math.max(0, limits.requestsPerMinute - p.minute.reservedAfter) + p.minute.left;
  const keyLeft = key && keyLimit ? Math.max(0, keyLimit.perMinute - key.reservedAfter) + key.left : Infinity;
  return {
    outcome: 'allowed',
    limit,
    remaining: Math.min(planLeft, keyLeft),
    reset,
    retryAfter: 1,
    monthlyUsed: q > 0 ? q : null,
    monthlyLimit: limits.monthlyQueries,
    overFairUse: limits.fairUse && limits.monthlyQueries !== null && q > limits.monthlyQueries,
    byKeyLimit: false,
  };
}

/**
 * One call for `p`: refills the blocks `batch` needs (what is left of such a block goes back in
 * the same call and the whole demand is asked for), claims its proofs, writes the usage counted
 * so far, and gives back the blocks `back` names. Returns the claims' answers and the blocks
 * refilled for the windows they were asked in.
 */
async function call(
  ctx: Ctx,
  p: Payer,
  batch: Waiting[],
  back: (l: Lease) => boolean,
): Promise<{ claimed: number[]; refilled: Set<Lease> }> {
  const { clock, sizing } = ctx;
  const limits = ctx.limitsOf(p.plan);
  const keys: string[] = [K.usage(p.workspace, clock.month), K.usageDay(p.workspace, clock.day)];
  const reservations: (string | number)[] = [];
  const leases: Lease[] = [];
  /** Whether each lease asked for tokens (a refill) rather than only giving its unused ones back. */
  const needed: boolean[] = [];
  /** What each lease gave up locally for this call to return (kept when the call never reaches Redis). */
  const surrendered: number[] = [];
  let returning = 0;
  const reserve = (key: string, lease: Lease, limit: number, ttl: number, demand: number) => {
    const need = demand > lease.left ? demand : 0;
    if (need === 0 && !(lease.left > 0 && returning < MAX_GIVE_BACKS && back(lease))) return;
    if (need === 0) returning++;
    const returned = lease.surrender();
    reservations.push(keys.push(key), limit, ttl, need, need > 0 ? lease.want(need) : 0, returned);
    leases.push(lease);
    needed.push(need > 0);
    surrendered.push(returned);
  };
  const count = (f: (w: Waiting) => boolean) => batch.reduce((n, w) => n + (f(w) ? 1 : 0), 0);
  const monthLimit = limits.monthlyQueries === null || limits.fairUse ? NO_LIMIT : limits.monthlyQueries;
  reserve(K.rateMinute(p.workspace, clock.minute), p.minute, limits.requestsPerMinute, 120, batch.length);
  reserve(
    K.rateMonth(p.workspace, clock.month),
    p.month,
    monthLimit,
    clock.monthTtl,
    count((w) => w.charge.countsAsQuery),
  );
  // What the batch asks of each key's and each agent bucket's block, in one pass over it. A call
  // that gives idle blocks back (the tick) looks at every block; one that refills (a turn's
  // charges) only at those its charges spend: a workspace may hold a block for each of thousands
  // of credentials, and a request must not pay for the others (docs/operations.md "Limits for agents").
  const keyDemand = new Map<string, { perMinute: number; demand: number }>();
  const agentDemand = new Map<string, { share: number; demand: number }>();
  for (const w of batch) {
    if (w.keyLimit) {
      const d = keyDemand.get(w.keyLimit.keyId);
      if (d) d.demand++;
      else keyDemand.set(w.keyLimit.keyId, { perMinute: w.keyLimit.perMinute, demand: 1 });
    }
    for (const spend of w.charge.agent ?? []) {
      // Every bucket the batch spends has its lease (a charge refused before reaching one made none).
      minuteLease(ctx, p.agents, spend.bucket);
      const d = agentDemand.get(spend.bucket);
      if (d) d.demand += spend.cost;
      else agentDemand.set(spend.bucket, { share: spend.share, demand: spend.cost });
    }
  }
  const giving = back !== never;
  const keyLeases = giving ? p.keys.keys() : keyDemand.keys();
  for (const keyId of keyLeases) {
    const lease = p.keys.get(keyId);
    if (!lease) continue;
    const d = keyDemand.get(keyId);
    reserve(K.rateKeyMinute(p.workspace, keyId, clock.minute), lease, d?.perMinute ?? NO_LIMIT, 120, d?.demand ?? 0);
  }
  const agentLeases = giving ? p.agents.keys() : agentDemand.keys();
  for (const bucket of agentLeases) {
    const lease = p.agents.get(bucket)!;
    const d = agentDemand.get(bucket);
    const limit = shareLimit(limits.requestsPerMinute, d?.share ?? 1);
    reserve(K.rateAgentMinute(p.workspace, bucket, clock.minute), lease, limit, 120, d?.demand ?? 0);
  }
  const claims: (string | number)[] = [];
  for (const w of batch) if (w.charge.proofKey && !w.claimed) claims.push(keys.push(w.charge.proofKey), DPOP_REPLAY_TTL_SECONDS);
  const tallies: (string | number)[] = [];
  const counted = new Map<string, number>();
  for (const [field, n] of p.usage) {
    if (counted.size === MAX_TALLIES) break;
    counted.set(field, n);
    tallies.push(1, field, n, clock.monthTtl, 2, field, n, USAGE_DAY_TTL_SECONDS);
  }
  for (const field of counted.keys()) p.usage.delete(field);
  const args = [sizing.share, leases.length, ...reservations, claims.length / 2, ...claims, tallies.length / 4, ...tallies];
  const windows = leases.map((l) => l.window);
  let out: number[];
  try {
    out = (await runScript(ctx.redis, LEASE, keys, args)) as number[];
  } catch (err) {
    // A call that never reached Redis wrote nothing: its usage goes with the next call and the
    // tokens it was to give back stay in their blocks. One that may have run (timed out once
    // written) is neither counted twice nor given back twice.
    if (wasNotSent(err)) {
      for (const [field, n] of counted) p.usage.set(field, (p.usage.get(field) ?? 0) + n);
      leases.forEach((lease, i) => lease.window === windows[i] && (lease.granted += surrendered[i]!));
    }
    throw err;
  }
  // A grant for a window that has ended meanwhile is not used in the next (it lapses, unused).
  const refilled = new Set<Lease>();
  leases.forEach((lease, i) => {
    if (lease.window !== windows[i]) return;
    lease.refilled(out[i * 2]!, out[i * 2 + 1]!);
    if (needed[i]) refilled.add(lease);
  });
  return { claimed: out.slice(leases.length * 2), refilled };
}

const noop = () => undefined;
const never = () => false;

function refusal(
  outcome: RateOutcome,
  limit: number,
  reset: number,
  retryAfter: number,
  monthlyLimit: number | null,
  byKeyLimit: boolean,
): RateDecision {
  return { outcome, limit, remaining: 0, reset, retryAfter, monthlyUsed: null, monthlyLimit, overFairUse: false, byKeyLimit };
}
