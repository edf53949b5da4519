/**
 * The one limiter, bucket by bucket (docs/operations.md "Rate limits"): every named bucket, through
 * the code its service runs, against a real Redis. For each: N concurrent attempts against its
 * limit L admit exactly L (two replicas for the gateway's buckets; the agent buckets in each limiter
 * mode, exact and leased); a refusal names a wait no longer than the window, and once the window
 * has passed the subject is admitted again; a refunded attempt admits one more; the sign-in
 * backoff doubles its wait.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { K, WINDOWS } from '@svc/accounts';
import { createThrottle } from '@svc/auth-service/http/throttle.ts';
import { BUCKETS, pace, shareLimit, type BucketName, type WindowRule } from '@svc/limits';
import { createLogger } from '@svc/logger';
import { countManagementRequest } from '@svc/management';
import { createAdmit, type Admit } from '@svc/mcp-gateway/ratelimit/admit.ts';
import { createLeasedLimiter } from '@svc/mcp-gateway/ratelimit/leased-limiter.ts';
import { createRateLimiter } from '@svc/mcp-gateway/ratelimit/rate-limiter.ts';
import { planLimits } from '@svc/policy';
import { startRedis, testClock, type RedisFixture } from '@svc/testkit';

// A frozen clock 10 s into a minute: the clock-aligned windows end 50 s later.
const clock = testClock({ start: Date.UTC(2026, 0, 15, 12, 0, 10) });
let redis: RedisFixture;
before(async () => {
  redis = await startRedis();
});
after(() => redis.stop());

interface Row {
  /** The bucket's name in `BUCKETS` (an agent bucket's with its limiter mode), or the gateway's (numbers from the plan table). */
  name: BucketName | `${BucketName} (${string})` | `gateway ${string}`;
  /** L: attempts a subject is admitted in one window. */
  limit: number;
  /** One attempt of `subject`: 0 admitted, else the seconds to wait. */
  hit: (subject: string) => Promise<number>;
  /** The longest wait a refusal may name (the window, or the backoff's first wait). */
  window: number;
  /** Windows on the clock (true) pass by advancing it; counters that expire in Redis (false) are checked by their TTL. */
  clocked: boolean;
  refund?: (subject: string) => Promise<void>;
  /** The Redis key whose TTL is the window (unclocked rows). */
  key?: (subject: string) => string;
  /** Readies a subject (the monthly quota starts near its end). */
  prepare?: (subject: string) => Promise<void>;
}

const throttle = () => createThrottle(redis.client, clock.now);
const windowRow = (name: BucketName, rule: WindowRule): Row => ({
  name,
  limit: rule.limit,
  hit: (s) => throttle().attempt(name, s, rule),
  refund: (s) => throttle().refund(name, s),
  window: rule.windowSeconds,
  clocked: false,
  key: (s) => `svc:oidc:throttle:${name}:${s}`,
});
const WINDOW_BUCKETS = [
  'signInPerIp',
  'signInPerAccount',
  'signUpPerIp',
  'signUpPerEmail',
  'resetPerIp',
  'resetPerEmail',
  'codeEntryPerIp',
  'registrationPerIp',
  'secondFactorPerAccount',
  'cimdFetchPerSource',
  'cimdFetchPerHost',
  'samlAcsPerWorkspace',
] as const satisfies BucketName[];

// Two replicas' limiters, each batching its own concurrent charges: together they admit exactly L.
const replicas = () => [0, 1].map(() => createRateLimiter(redis.client, { profile: 'current', scale: 1, now: clock.now }));
const FREE = planLimits('FREE');
const gatewayRow = (name: Row['name'], limit: number, charge: (s: string) => Parameters<ReturnType<typeof replicas>[0]>[0]): Row => {
  let limiters: ReturnType<typeof replicas> | undefined;
  let turn = 0;
  return {
    name,
    limit,
    hit: async (s) => {
      limiters ??= replicas();
      const d = await limiters[turn++ % 2]!(charge(s));
      return d.outcome === 'allowed' ? 0 : d.retryAfter;
    },
    window: name === 'gateway monthly queries' ? 31 * 86_400 : 60,
    clocked: true,
  };
};
const KEY_LIMIT = 3;

type ResolvedCaller = Parameters<Admit>[0];

/** An agent bucket's attempt: the caller (an OAuth user through a client, or a key) and what it calls. */
interface AgentAttempt {
  type: 'user' | 'key';
  client?: string;
  tool?: string;
  cost?: number;
}

/**
 * An agent bucket's row (docs/operations.md "Limits for agents"), through the admit step of two
 * replicas in `mode`: each attempt of the subject's is `attempt(i)`, and a refusal is the bucket's,
 * its message naming it (`refusal`), its wait in Retry-After.
 */
const agentRow = (
  mode: 'exact' | 'leased',
  spec: { name: BucketName; limit: number; refusal: RegExp; attempt: (i: number) => AgentAttempt; prepare?: (s: string) => Promise<void> },
): Row => {
  let admits: Admit[] | undefined;
  let turn = 0;
  const options = { profile: 'current', scale: 1, now: clock.now } as const;
  const limiter = () =>
    mode === 'exact' ? createRateLimiter(redis.client, options) : createLeasedLimiter(redis.client, { ...options, tickMs: 0 });
  return {
    name: `${spec.name} (${mode})`,
    limit: spec.limit,
    hit: async (s) => {
      admits ??= [0, 1].map(() =>
        createAdmit({ limiter: limiter(), logger: createLogger({ service: 't', silent: true }), now: clock.now }),
      );
      const a = spec.attempt(turn);
      const caller = { type: a.type, id: 'u', clientId: a.client, session: 'k', keyHash: a.type === 'key' ? 'h' : '', keyLimit: null };
      try {
        const payer = { workspace: s, plan: 'FREE' };
        await admits[turn++ % 2]!({ ...caller, payer } as unknown as ResolvedCaller, {
          countsAsQuery: false,
          tool: a.tool ?? null,
          cost: a.cost ?? 1,
        });
        return 0;
      } catch (err) {
        // The gateway's limit refusal (docs/errors.md "Limit refusals").
        const refusal = err as { code?: unknown; message?: string; headers?: Record<string, string> };
        assert.equal(refusal.code, 'rate_limited', String(err));
        assert.match(refusal.message ?? '', spec.refusal);
        return Number(refusal.headers?.['Retry-After']);
      }
    },
    window: 60,
    clocked: true,
    ...(spec.prepare ? { prepare: spec.prepare } : {}),
  };
};
/** The person's bucket is the whole minute: it starts 5 short of it, so it refuses before the workspace's. */
const PERSON_LEFT = 5;
/** A tool call's cost: the tool budget (the whole minute, in cost units) admits fewer calls than the minute has requests. */
const TOOL_COST = 3;
const AGENT_ROWS = [
  {
    name: 'agentPerson',
    limit: PERSON_LEFT,
    refusal: /you may make \d+ per minute/,
    // Each attempt through another client: the client's share never binds.
    attempt: (i: number): AgentAttempt => ({ type: 'user', client: `client-${i}` }),
    prepare: async (s: string) => {
      const used = shareLimit(FREE.requestsPerMinute, BUCKETS.agentPerson.share) - PERSON_LEFT;
      await redis.client.set(K.rateAgentMinute(s, 'p:u-u', WINDOWS.minute(clock.now())), used);
    },
  },
  {
    name: 'agentClient',
    limit: shareLimit(FREE.requestsPerMinute, BUCKETS.agentClient.share),
    refusal: /one client of yours may make \d+ per minute/,
    attempt: (): AgentAttempt => ({ type: 'user', client: 'agent' }),
  },
  {
    name: 'agentTools',
    limit: Math.floor(shareLimit(FREE.requestsPerMinute, BUCKETS.agentTools.share) / TOOL_COST),
    refusal: /your tool calls may spend \d+ per minute/,
    attempt: (): AgentAttempt => ({ type: 'key', tool: 'svc_search', cost: TOOL_COST }),
  },
] as const;

const ROWS: Row[] = [
  ...WINDOW_BUCKETS.map((name) => windowRow(name, BUCKETS[name])),
  {
    name: 'management',
    limit: BUCKETS.management.limit,
    hit: async (s) => (await countManagementRequest(redis.client, s, clock.now())).retryAfter,
    window: BUCKETS.management.windowSeconds,
    clocked: true,
  },
  {
    name: 'signInAccountBackoff',
    limit: BUCKETS.signInAccountBackoff.freeFailures,
    hit: (s) => throttle().backoff('backoff', s, BUCKETS.signInAccountBackoff),
    window: BUCKETS.signInAccountBackoff.firstWaitSeconds,
    clocked: true,
  },
  {
    name: 'devicePoll',
    limit: 1,
    hit: (s) => pace(redis.client, `poll:${s}`, BUCKETS.devicePoll, { nowMs: clock.now(), firstIntervalSeconds: 5, ttlSeconds: 1800 }),
    // Each poll too soon adds a step: after the concurrent ones the interval is many steps long.
    window: Infinity,
    clocked: true,
  },
  gatewayRow('gateway requests per minute (FREE)', FREE.requestsPerMinute, (s) => ({
    workspace: s,
    plan: 'FREE',
    countsAsQuery: false,
    credential: 'key:k',
  })),
  {
    ...gatewayRow('gateway monthly queries', 5, (s) => ({ workspace: s, plan: 'FREE', countsAsQuery: true, credential: 'key:k' })),
    prepare: async (s) => void (await redis.client.set(K.rateMonth(s, WINDOWS.month(clock.now())), FREE.monthlyQueries! - 5)),
  },
  gatewayRow("gateway key's own per-minute limit", KEY_LIMIT, (s) => ({
    workspace: s,
    plan: 'FREE',
    countsAsQuery: false,
    credential: 'key:k',
    keyLimit: { keyId: 'k', perMinute: KEY_LIMIT },
  })),
  // The agent buckets, in each mode: both enforce them the same (docs/operations.md "Leased or exact limits").
  ...(['exact', 'leased'] as const).flatMap((mode) => AGENT_ROWS.map((spec) => agentRow(mode, spec))),
];

async function subjectOf(row: Row): Promise<string> {
  const s = randomUUID();
  await row.prepare?.(s);
  return s;
}
const admitted = (waits: number[]) => waits.filter((w) => w === 0).length;

for (const row of ROWS) {
  describe(`bucket ${row.name}`, () => {
    test(`N concurrent attempts against L = ${row.limit} admit exactly L`, async () => {
      const s = await subjectOf(row);
      const waits = await Promise.all(Array.from({ length: 2 * row.limit + 5 }, () => row.hit(s)));
      assert.equal(admitted(waits), row.limit);
      assert.ok(
        waits.every((w) => w >= 0 && w <= row.window),
        `every wait within the window (${row.window} s)`,
      );
    });

    test('a refusal waits for the window; then the subject is admitted again', async () => {
      const s = await subjectOf(row);
      for (let i = 0; i < row.limit; i++) assert.equal(await row.hit(s), 0, `attempt ${i + 1}`);
      const wait = await row.hit(s);
      assert.ok(wait > 0 && wait <= row.window, `refused with a wait of ${wait} s`);
      // A poll too soon lengthens the device code's interval (RFC 8628 §3.5): the later wait holds.
      const again = await row.hit(s);
      assert.ok(again > 0, 'still refused, nothing counted by the refusal');
      if (row.clocked) {
        clock.advance(Math.max(wait, again) * 1000);
        assert.equal(await row.hit(s), 0, 'admitted once the wait is over');
      } else {
        const ttl = await redis.client.ttl(row.key!(s));
        assert.ok(wait >= row.window - 5 && ttl >= row.window - 5 && ttl <= row.window, `the counter lives for the window (ttl ${ttl})`);
      }
    });

    if (row.refund) {
      const refund = row.refund;
      test('a refunded attempt admits one more, and a refund never goes below zero', async () => {
        const s = await subjectOf(row);
        await refund(s);
        for (let i = 0; i < row.limit; i++) assert.equal(await row.hit(s), 0, `attempt ${i + 1}`);
        assert.ok((await row.hit(s)) > 0);
        await refund(s);
        assert.equal(await row.hit(s), 0, 'the refunded slot');
        assert.ok((await row.hit(s)) > 0);
      });
    }
  });
}

test('signInAccountBackoff: each failure past the free ones doubles the wait, up to the most', async () => {
  const rule = BUCKETS.signInAccountBackoff;
  const s = randomUUID();
  for (let i = 0; i < rule.freeFailures; i++) assert.equal(await throttle().backoff('backoff', s, rule), 0);
  const waits: number[] = [];
  for (let wait = await throttle().backoff('backoff', s, rule); waits.length < 12; wait = await throttle().backoff('backoff', s, rule)) {
    waits.push(wait);
    clock.advance(wait * 1000);
    assert.equal(await throttle().backoff('backoff', s, rule), 0, 'admitted after the wait');
  }
  const expected = waits.map((_, i) => Math.min(rule.firstWaitSeconds * 2 ** i, rule.maxWaitSeconds));
  assert.deepEqual(waits, expected);
  await throttle().reset('backoff', s);
  assert.equal(await throttle().backoff('backoff', s, rule), 0, 'a success forgets the failures');
});
