/**
 * Limits for agents (docs/operations.md "Limits for agents") through the admit step, in each
 * limiter mode (docs/operations.md "Leased or exact limits"), of two replicas on one real Redis:
 * one person's agent reconnecting in a storm (a new session per request, through one OAuth client)
 * spends at most its client's share, so the same person's other client is still admitted, to the
 * rest of the person's minute (a refused request counted in none of its buckets); a person's
 * personal keys spend the person's bucket only, never a client's half; a tool budget is
 * spent by each tool's cost and never by initialize or listings; every refusal carries the limit's
 * data and headers. In exact mode, random concurrent requests of several people, clients, keys and
 * tools never pass any bucket's limit, every counter holds exactly what was admitted, and a
 * refusal names a bucket that could not take the request; a burst's agent buckets ride in its one
 * script call, its alike requests one run of arguments.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { after, before, describe, test } from 'node:test';
import { connectRedis, K, WINDOWS } from '@svc/accounts';
import { SvcError } from '@svc/errors';
import { BUCKETS, shareLimit } from '@svc/limits';
import { createLogger } from '@svc/logger';
import { planLimits } from '@svc/policy';
import { startRedis, testClock, type RedisFixture } from '@svc/testkit';
import type { ResolvedCaller } from '../src/auth/caller.ts';
import { createAdmit } from '../src/ratelimit/admit.ts';
import { createLeasedLimiter } from '../src/ratelimit/leased-limiter.ts';
import { agentBucketKind, createRateLimiter, type Charge, type RateDecision } from '../src/ratelimit/rate-limiter.ts';

let redis: RedisFixture;
before(async () => {
  redis = await startRedis();
});
after(() => redis.stop());

const clock = testClock({ start: Date.UTC(2026, 2, 10, 9, 0, 5) });
const PER_MINUTE = planLimits('TEAM').requestsPerMinute;

type Mode = 'exact' | 'leased';

/** One replica's limiter in `mode`: the exact one holds nothing, so it has nothing to give back. */
function limiterOf(mode: Mode, conn: ReturnType<typeof connectRedis>) {
  const options = { profile: 'current', scale: 1, now: clock.now } as const;
  if (mode === 'exact') return Object.assign(createRateLimiter(conn, options), { release: async () => {}, abandon: () => {} });
  return createLeasedLimiter(conn, { ...options, tickMs: 0 });
}

/** Two replicas' admit steps, each its own limiter and Redis connection. */
function replicas(mode: Mode) {
  return [0, 1].map(() => {
    const conn = connectRedis(redis.url, { name: 'agent-limits' });
    const limiter = limiterOf(mode, conn);
    const admit = createAdmit({ limiter, logger: createLogger({ service: 't', silent: true }), now: clock.now });
    return {
      admit,
      release: () => limiter.release(),
      close: () => {
        limiter.abandon();
        conn.disconnect();
      },
    };
  });
}

let sessions = 0;
/** An OAuth user's caller through `client`, each time a new session (a reconnect). */
const person = (workspace: string, id: string, client: string) =>
  ({
    type: 'user',
    id,
    clientId: client,
    session: `grant-${++sessions}`,
    keyHash: '',
    keyLimit: null,
    payer: { workspace, plan: 'TEAM' },
  }) as unknown as ResolvedCaller;

/** Admits each request on a replica in turn, all in flight together: the refusals, by message. */
async function storm(admits: ReturnType<typeof replicas>, n: number, caller: () => ResolvedCaller, tool: string | null, cost = 1) {
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      // An admission decided at once answers (or throws) at once: taken as a promise either way.
      (async () => admits[i % admits.length]!.admit(caller(), { countsAsQuery: false, tool, cost }))().then(
        () => null,
        (err: unknown) => err,
      ),
    ),
  );
  const refused = results.filter((r): r is SvcError => r instanceof SvcError);
  assert.equal(refused.length + results.filter((r) => r === null).length, n, 'every answer is an admission or a limit refusal');
  return { admitted: n - refused.length, refused };
}

// Each mode enforces the same buckets with the same refusals; the workspaces are each mode's own.
for (const mode of ['exact', 'leased'] as const) {
  describe(`${mode} limits`, () => {
    test("one agent's reconnect storm spends at most its client's share; the person's other client is still admitted", async () => {
      const admits = replicas(mode);
      const share = Math.floor(PER_MINUTE * BUCKETS.agentClient.share);
      const a = await storm(admits, PER_MINUTE, () => person(`ws-storm-${mode}`, 'u1', 'agent-a'), null);
      assert.equal(a.admitted, share, `the storming client gets its share (${share} of ${PER_MINUTE})`);
      const refusal = a.refused[0]!;
      assert.equal(refusal.code, 'rate_limited');
      assert.match(refusal.message, /one client of yours may make \d+ per minute/);
      assert.deepEqual([refusal.data['limit'], refusal.data['remaining']], [share, 0]);
      assert.equal(typeof refusal.data['retryAfterMs'], 'number');
      assert.equal(refusal.headers['RateLimit-Limit'], String(share));
      // Leased: what the storm reserved and left unused goes back (the tick gives idle blocks back
      // within a second). Exact: nothing is held.
      await Promise.all(admits.map((r) => r.release()));
      // The storm's refusals counted nothing, so the rest of the person's minute is the other client's.
      const b = await storm(admits, PER_MINUTE, () => person(`ws-storm-${mode}`, 'u1', 'agent-b'), null);
      assert.equal(b.admitted, PER_MINUTE - share, "the person's other client is admitted to the rest of the person's minute");
      admits.forEach((r) => r.close());
    });

    test("a person's personal keys are the person, not a client: they may spend the person's whole minute", async () => {
      const admits = replicas(mode);
      // A personal key resolves to the person with no OAuth client (the `svc` CLI's key).
      const viaKey = () => ({ ...person(`ws-key-${mode}`, 'u3', ''), clientId: undefined }) as unknown as ResolvedCaller;
      const a = await storm(admits, PER_MINUTE + 5, viaKey, null);
      assert.equal(a.admitted, PER_MINUTE, 'the whole minute, past the half a client of the person gets');
      assert.match(a.refused[0]!.message, /^Rate limit exceeded/);
      assert.doesNotMatch(a.refused[0]!.message, /one client of yours/);
      admits.forEach((r) => r.close());
    });

    test('a tool budget is spent by each tool call at its cost; initialize and listings never spend it', async () => {
      const admits = replicas(mode);
      const budget = Math.floor(PER_MINUTE * BUCKETS.agentTools.share);
      const cost = Math.floor(budget / 4) + 1;
      const caller = () => person(`ws-tools-${mode}`, 'u2', 'agent-c');
      // Listings and initialize (no tool) first: the tool budget is untouched by them.
      assert.equal((await storm(admits, 20, caller, null)).admitted, 20);
      const calls = await storm(admits, 5, caller, 'svc_search', cost);
      assert.equal(calls.admitted, Math.floor(budget / cost), `calls of cost ${cost} within a budget of ${budget}`);
      assert.match(calls.refused[0]!.message, /your tool calls may spend \d+ per minute/);
      // The person's requests without a tool still pass within the client's share.
      assert.equal((await storm(admits, 5, caller, null)).admitted, 5);
      admits.forEach((r) => r.close());
    });
  });
}

/** One request of the property: who sends it, through which replica, and what it spends. */
const request = fc.record({
  replica: fc.integer({ min: 0, max: 1 }),
  // Sent with the first or the second wave: the second finds the first's counts in Redis.
  wave: fc.integer({ min: 0, max: 1 }),
  // A person (OAuth user) or a key: a key spends only its tool budget.
  who: fc.constantFrom('u1', 'u2', 'key'),
  client: fc.constantFrom('agent-a', 'agent-b', 'agent-c'),
  tool: fc.constantFrom(null, 'svc_search', 'svc_recall'),
  cost: fc.integer({ min: 1, max: 12 }),
});
type Request = typeof request extends fc.Arbitrary<infer T> ? T : never;

let workspaces = 0;
/** The request's caller, its payer on FREE (the smallest minute: the buckets fill within a run). */
const callerOf = (workspace: string, r: Request): ResolvedCaller => {
  const payer = { workspace, plan: 'FREE' };
  if (r.who !== 'key') return { ...person(workspace, r.who, r.client), payer } as ResolvedCaller;
  return { type: 'key', id: 'k1', session: 'k1', keyHash: 'h', keyLimit: null, payer } as unknown as ResolvedCaller;
};

test('exact mode: concurrent requests from two replicas never pass an agent bucket, and a refused one counts in none', async () => {
  const free = planLimits('FREE').requestsPerMinute;
  await fc.assert(
    fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 120 }), async (requests) => {
      const workspace = `ws-prop-${++workspaces}`;
      // Each replica's admit step over its exact limiter, recording what each charge spent and its decision.
      const seen: { charge: Charge; decision: RateDecision }[] = [];
      const admits = [0, 1].map(() => {
        const limiter = createRateLimiter(redis.client, { profile: 'current', scale: 1, now: clock.now });
        const recorded = async (charge: Charge) => {
          const decision = await limiter(charge);
          seen.push({ charge, decision });
          return decision;
        };
        return createAdmit({ limiter: recorded, logger: createLogger({ service: 't', silent: true }), now: clock.now });
      });
      for (const wave of [0, 1]) {
        await Promise.all(
          requests
            .filter((r) => r.wave === wave)
            .map((r) =>
              (async () => admits[r.replica]!(callerOf(workspace, r), { countsAsQuery: false, tool: r.tool, cost: r.cost }))().catch(
                (err: unknown) => {
                  assert.ok(err instanceof SvcError && err.code === 'rate_limited', String(err));
                },
              ),
            ),
        );
      }
      assert.equal(seen.length, requests.length);
      // What the admitted charges spent of each bucket, and each bucket's limit.
      const spent = new Map<string, number>();
      const limits = new Map<string, number>();
      for (const { charge, decision } of seen) {
        for (const s of charge.agent ?? []) {
          limits.set(s.bucket, shareLimit(free, s.share));
          if (decision.outcome === 'allowed') spent.set(s.bucket, (spent.get(s.bucket) ?? 0) + s.cost);
        }
      }
      const minute = WINDOWS.minute(clock.now());
      for (const [bucket, limit] of limits) {
        const used = spent.get(bucket) ?? 0;
        assert.ok(used <= limit, `${bucket}: ${used} admitted of ${limit}`);
        const counter = Number((await redis.client.get(K.rateAgentMinute(workspace, bucket, minute))) ?? 0);
        assert.equal(counter, used, `${bucket}: the counter holds exactly what was admitted`);
      }
      const admitted = seen.filter((x) => x.decision.outcome === 'allowed').length;
      assert.equal(Number((await redis.client.get(K.rateMinute(workspace, minute))) ?? 0), admitted);
      // No false denial: the bucket a refusal names could not take the request even at the end.
      for (const { charge, decision } of seen) {
        if (decision.outcome === 'allowed') continue;
        const by = decision.byAgentBucket;
        if (by === undefined) {
          assert.equal(admitted, free, "a refusal by the workspace's minute comes when it is full");
          continue;
        }
        const s = charge.agent!.find((a) => agentBucketKind(a.bucket) === by)!;
        assert.ok((spent.get(s.bucket) ?? 0) + s.cost > limits.get(s.bucket)!, `${s.bucket} refused a request it could take`);
        assert.deepEqual([decision.limit, decision.remaining], [limits.get(s.bucket), 0]);
      }
    }),
    { numRuns: 40 },
  );
});

test("exact mode: a batch's agent buckets ride in its one call, alike charges one run, each counter named once", async () => {
  const client = redis.client.duplicate();
  try {
    // Connected first: a command queued while connecting passes sendCommand twice.
    await client.ping();
    const calls: unknown[][] = [];
    const send = client.sendCommand.bind(client);
    client.sendCommand = ((command: { name: string; args: unknown[] }, ...rest: unknown[]) => {
      if (command.name === 'evalsha') calls.push(command.args);
      return (send as (...a: unknown[]) => unknown)(command, ...rest);
    }) as typeof client.sendCommand;
    const limiter = createRateLimiter(client, { profile: 'current', scale: 1, now: clock.now });
    const admit = createAdmit({ limiter, logger: createLogger({ service: 't', silent: true }), now: clock.now });
    const burst = async (n: number, workspace: string) => {
      calls.length = 0;
      await Promise.all(Array.from({ length: n }, () => admit(person(workspace, 'u', 'agent'), { countsAsQuery: false, tool: null })));
      assert.equal(calls.length, 1, 'one call for the whole batch');
      // EVALSHA sha numkeys KEYS... ARGV...: the workspace's 4 keys, the person's and the client's counters.
      const [, numkeys, ...rest] = calls[0]!;
      assert.equal(Number(numkeys), 6);
      return rest.length - 6;
    };
    // 8 arguments, then one run: its 8 fields and 3 for each of its two agent buckets.
    assert.equal(await burst(3, 'ws-runs-a'), 8 + 8 + 2 * 3);
    assert.equal(await burst(40, 'ws-runs-b'), 8 + 8 + 2 * 3, 'forty requests alike are one run as three are');
  } finally {
    client.disconnect();
  }
});
