/**
 * Limits for agents (docs/operations.md "Limits for agents") through the admit step and the leased
 * limiter of two replicas on one real Redis: one person's agent reconnecting in a storm (a new
 * session per request, through one OAuth client) spends at most its client's share, so the same
 * person's other client is still admitted; a tool budget is spent by each tool's cost and never
 * by initialize or listings; every refusal carries the limit's data and headers.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connectRedis } from '@svc/accounts';
import { SvcError } from '@svc/errors';
import { BUCKETS } from '@svc/limits';
import { createLogger } from '@svc/logger';
import { planLimits } from '@svc/policy';
import { startRedis, testClock, type RedisFixture } from '@svc/testkit';
import type { ResolvedCaller } from '../src/auth/caller.ts';
import { createAdmit } from '../src/ratelimit/admit.ts';
import { createLeasedLimiter } from '../src/ratelimit/leased-limiter.ts';

let redis: RedisFixture;
before(async () => {
  redis = await startRedis();
});
after(() => redis.stop());

const clock = testClock({ start: Date.UTC(2026, 2, 10, 9, 0, 5) });
const PER_MINUTE = planLimits('TEAM').requestsPerMinute;

/** Two replicas' admit steps, each its own limiter and Redis connection. */
function replicas() {
  return [0, 1].map(() => {
    const conn = connectRedis(redis.url, { name: 'agent-limits' });
    const limiter = createLeasedLimiter(conn, { profile: 'current', scale: 1, now: clock.now, tickMs: 0 });
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
      admits[i % admits.length]!.admit(caller(), { countsAsQuery: false, tool, cost }).then(
        () => null,
        (err: unknown) => err,
      ),
    ),
  );
  const refused = results.filter((r): r is SvcError => r instanceof SvcError);
  assert.equal(refused.length + results.filter((r) => r === null).length, n, 'every answer is an admission or a limit refusal');
  return { admitted: n - refused.length, refused };
}

test("one agent's reconnect storm spends at most its client's share; the person's other client is still admitted", async () => {
  const admits = replicas();
  const share = Math.floor(PER_MINUTE * BUCKETS.agentClient.share);
  const a = await storm(admits, PER_MINUTE, () => person('ws-storm', 'u1', 'agent-a'), null);
  assert.equal(a.admitted, share, `the storming client gets its share (${share} of ${PER_MINUTE})`);
  const refusal = a.refused[0]!;
  assert.equal(refusal.code, 'rate_limited');
  assert.match(refusal.message, /one client of yours may make \d+ per minute/);
  assert.deepEqual([refusal.data['limit'], refusal.data['remaining']], [share, 0]);
  assert.equal(typeof refusal.data['retryAfterMs'], 'number');
  assert.equal(refusal.headers['RateLimit-Limit'], String(share));
  // What the storm reserved and left unused goes back (the tick gives idle blocks back within a second).
  await Promise.all(admits.map((r) => r.release()));
  const b = await storm(admits, 10, () => person('ws-storm', 'u1', 'agent-b'), null);
  assert.equal(b.admitted, 10, "the person's other client is admitted");
  admits.forEach((r) => r.close());
});

test('a tool budget is spent by each tool call at its cost; initialize and listings never spend it', async () => {
  const admits = replicas();
  const budget = Math.floor(PER_MINUTE * BUCKETS.agentTools.share);
  const cost = Math.floor(budget / 4) + 1;
  const caller = () => person('ws-tools', 'u2', 'agent-c');
  // Listings and initialize (no tool) first: the tool budget is untouched by them.
  assert.equal((await storm(admits, 20, caller, null)).admitted, 20);
  const calls = await storm(admits, 5, caller, 'svc_search', cost);
  assert.equal(calls.admitted, Math.floor(budget / cost), `calls of cost ${cost} within a budget of ${budget}`);
  assert.match(calls.refused[0]!.message, /your tool calls may spend \d+ per minute/);
  // The person's requests without a tool still pass within the client's share.
  assert.equal((await storm(admits, 5, caller, null)).admitted, 5);
  admits.forEach((r) => r.close());
});
