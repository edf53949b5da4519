/**
 * The leased limiter across replicas (docs/operations.md "Leased or exact limits"), as a property:
 * N replicas (each its own limiter and its own Redis connection) against one real Redis, charges
 * arriving at random replicas over random turns of the event loop, the clock jumping across
 * minute and month edges, and replicas killed mid-block (their blocks abandoned, never given
 * back). After every burst, for the current windows: nothing is admitted beyond a limit (the
 * workspace's minute, its month, a key's own minute), and Redis's reservation counter is exactly
 * what was admitted plus what live replicas hold plus what killed ones took with them. In a
 * window that refused anyone, the shortfall below the limit (the false denials' bound) is exactly
 * the tokens held elsewhere or lost with a killed replica; the figure measured is reported.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connectRedis, K, WINDOWS } from '@svc/accounts';
import { createLeasedLimiter } from '@svc/mcp-gateway/ratelimit/leased-limiter.ts';
import type { Charge, RateDecision } from '@svc/mcp-gateway/ratelimit/rate-limiter.ts';
import { planLimits } from '@svc/policy';
import { startRedis, testClock, waitFor, type RedisFixture } from '@svc/testkit';

let redis: RedisFixture;
before(async () => {
  redis = await startRedis();
});
after(() => redis.stop());

const SCALE = 10;
const PLAN = planLimits('FREE', 'current', SCALE);
const PER_MINUTE = PLAN.requestsPerMinute;
const MONTH_LIMIT = PLAN.monthlyQueries!;
/** What January has left when the run starts: the month runs out across replicas too. */
const MONTH_LEFT = 150;
const KEY = { keyId: 'k1', perMinute: 40 };
const WS = 'ws-leased';

/** A small seeded generator (mulberry32): each seed's run can be replayed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Tally {
  /** What the window admits at most (January's month: what was left of it). */
  limit: number;
  admitted: number;
  refused: number;
  /** Tokens killed replicas took with them in this window. */
  lost: number;
  /** Last seen after a burst: live replicas' unused tokens and Redis's counter. */
  held: number;
  reserved: number;
}
const tally = (m: Map<string, Tally>, w: string, limit: number): Tally => {
  let x = m.get(w);
  if (!x) m.set(w, (x = { limit, admitted: 0, refused: 0, lost: 0, held: 0, reserved: 0 }));
  return x;
};

async function run(seed: number, replicas: number) {
  await redis.flush();
  const random = rng(seed);
  const clock = testClock({ start: Date.UTC(2026, 0, 31, 23, 57, 30) });
  await redis.client.set(K.rateMonth(WS, WINDOWS.month(clock.now())), MONTH_LIMIT - MONTH_LEFT);
  const start = () => {
    const conn = connectRedis(redis.url, { name: `replica-${seed}` });
    return { conn, limiter: createLeasedLimiter(conn, { profile: 'current', scale: SCALE, now: clock.now, tickMs: 0 }) };
  };
  const live = Array.from({ length: replicas }, start);
  const minutes = new Map<string, Tally>();
  const months = new Map<string, Tally>();
  const keyMinutes = new Map<string, number>();
  let kills = 0;
  for (let burst = 0; burst < 60; burst++) {
    const minute = String(WINDOWS.minute(clock.now()));
    const month = WINDOWS.month(clock.now());
    const m = tally(minutes, minute, PER_MINUTE);
    const q = tally(months, month, month === '202601' ? MONTH_LEFT : MONTH_LIMIT);
    const pending: Promise<{ d: RateDecision; c: Charge }>[] = [];
    for (let i = 1 + Math.floor(random() * 60); i > 0; i--) {
      const c: Charge = {
        workspace: WS,
        plan: 'FREE',
        countsAsQuery: random() < 0.5,
        credential: 'key:k1',
        keyLimit: random() < 0.3 ? KEY : null,
      };
      const decided = live[Math.floor(random() * live.length)]!.limiter(c);
      pending.push(Promise.resolve(decided).then((d) => ({ d, c })));
      // Arrivals spread over turns of the event loop (no timer: the next turn).
      if (random() < 0.3) await new Promise(setImmediate);
    }
    for (const { d, c } of await Promise.all(pending)) {
      if (d.outcome === 'allowed') {
        m.admitted++;
        if (c.countsAsQuery) q.admitted++;
        if (c.keyLimit) keyMinutes.set(minute, (keyMinutes.get(minute) ?? 0) + 1);
      } else if (d.outcome === 'rate_limited' && !d.byKeyLimit) m.refused++;
      else if (d.outcome === 'quota_exhausted') q.refused++;
    }
    m.held = live.reduce((n, r) => n + r.limiter.held(WS).minute, 0);
    q.held = live.reduce((n, r) => n + r.limiter.held(WS).month, 0);
    m.reserved = Number((await redis.client.get(K.rateMinute(WS, Number(minute)))) ?? 0);
    q.reserved = Number((await redis.client.get(K.rateMonth(WS, month))) ?? 0) - (MONTH_LIMIT - q.limit);
    const where = `seed ${seed}, burst ${burst}, minute ${minute}`;
    assert.ok(m.admitted <= m.limit, `${where}: ${m.admitted} admitted of ${m.limit}`);
    assert.ok(q.admitted <= q.limit, `${where}: ${q.admitted} queries admitted of ${q.limit}`);
    assert.ok((keyMinutes.get(minute) ?? 0) <= KEY.perMinute, `${where}: the key's own limit`);
    assert.equal(m.reserved, m.admitted + m.held + m.lost, `${where}: the minute's reservations are accounted for`);
    assert.equal(q.reserved, q.admitted + q.held + q.lost, `${where}: the month's reservations are accounted for`);
    if (random() < 0.15) {
      // A replica dies mid-block: what it holds is never given back in this window.
      const i = Math.floor(random() * live.length);
      const dead = live[i]!;
      const held = dead.limiter.held(WS);
      m.lost += held.minute;
      q.lost += held.month;
      dead.limiter.abandon();
      dead.conn.disconnect();
      live[i] = start();
      kills++;
    }
    clock.advance(Math.floor(random() * 12_000));
  }
  for (const r of live) {
    r.limiter.abandon();
    r.conn.disconnect();
  }
  return { minutes: [...minutes.values()], months: [...months.values()], kills };
}

test('N leased replicas with random arrivals and kills never admit past a limit; false denials stay within the tokens held elsewhere', async (t) => {
  let requests = 0;
  let falseDenials = 0;
  let shortWindows = 0;
  let worst = 0;
  for (const [seed, replicas] of [
    [1, 2],
    [2, 3],
    [3, 4],
    [4, 6],
    [5, 8],
  ] as const) {
    const r = await run(seed, replicas);
    for (const w of [...r.minutes, ...r.months]) {
      requests += w.admitted + w.refused;
      if (w.refused === 0) continue;
      // A refusal came when everything was reserved: the shortfall is what others held or lost.
      assert.equal(w.limit - w.admitted, w.held + w.lost, `seed ${seed}: the shortfall is what was held elsewhere or lost`);
      falseDenials += Math.min(w.refused, w.limit - w.admitted);
      shortWindows++;
      worst = Math.max(worst, w.limit - w.admitted);
    }
    t.diagnostic(`seed ${seed}, ${replicas} replicas, ${r.kills} killed`);
  }
  t.diagnostic(
    `false denials: ${falseDenials} of ${requests} requests (${((100 * falseDenials) / requests).toFixed(2)} %); ` +
      `${shortWindows} windows ran out, the largest shortfall ${worst} tokens`,
  );
  assert.ok(shortWindows > 0, 'the runs reach the limits (else they test nothing)');
});

test('a window edge crossed while a refill is out refuses nothing far from the limit', async (t) => {
  // A charge that finds no block waits for its turn's call; another charge arriving after the
  // edge, before the answer, rolls the blocks to the new window. The answer was for the old one:
  // the first charge must wait again for the new window's refill, never be refused for it.
  const cases = [
    { name: 'minute edge', start: Date.UTC(2026, 0, 15, 12, 0, 59, 990) },
    { name: 'minute and month edge', start: Date.UTC(2026, 0, 31, 23, 59, 59, 990) },
  ];
  for (const { name, start } of cases)
    for (const lateBy of [10, 500, 30_000]) {
      await redis.flush();
      const clock = testClock({ start });
      const conn = connectRedis(redis.url, { name: 'edge' });
      const limiter = createLeasedLimiter(conn, { profile: 'current', scale: SCALE, now: clock.now, tickMs: 0 });
      const charge = (countsAsQuery: boolean): Charge => ({
        workspace: WS,
        plan: 'FREE',
        countsAsQuery,
        credential: 'key:k1',
        keyLimit: KEY,
      });
      try {
        const first = [limiter(charge(true)), limiter(charge(false))];
        // The turn's call is sent in this check phase, before this callback; its answer comes later.
        await new Promise(setImmediate);
        clock.advance(lateBy);
        const second = [limiter(charge(true)), limiter(charge(false))];
        const outcomes = (await Promise.all([...first, ...second])).map((d) => d.outcome);
        assert.deepEqual(
          outcomes,
          ['allowed', 'allowed', 'allowed', 'allowed'],
          `${name}, the edge crossed ${lateBy} ms before the answer`,
        );
      } finally {
        await limiter.release();
        conn.disconnect();
      }
    }
  t.diagnostic('6 edges crossed while a refill was out: every charge admitted');
});

test('a workspace holding blocks for thousands of callers does not make each request pay for the others', async (t) => {
  // Each caller has its own tool bucket (docs/operations.md "Limits for agents"), so a workspace's
  // replica may hold a block for each of the callers it saw this minute. A turn's refill must look
  // only at the blocks its own charges spend: CPU time per charge stays flat as the others pile up.
  // And giving them all back (the drain) goes a bounded call at a time: one call for every block
  // had more arguments than a function call takes, which on the gateway's connection (then
  // ioredis's auto-pipelining) threw inside the client and stopped the process.
  await redis.flush();
  const clock = testClock({ start: Date.UTC(2026, 0, 15, 12, 0, 5) });
  const conn = connectRedis(redis.url, { name: 'many-callers', batchWrites: true });
  const limiter = createLeasedLimiter(conn, { profile: 'current', scale: 100_000, now: clock.now, tickMs: 0 });
  const charge = (caller: string): Charge => ({
    workspace: WS,
    plan: 'FREE',
    countsAsQuery: false,
    credential: caller,
    keyLimit: null,
    agent: [{ bucket: `tools:${caller}`, share: 1, cost: 1 }],
  });
  const callers = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `key:${tag}${i}`);
  /** The CPU time (µs) of charging each caller once, 50 at a time, all admitted. */
  const cpuOf = async (who: string[]) => {
    const before = process.cpuUsage();
    for (let i = 0; i < who.length; i += 50) {
      const decisions = await Promise.all(who.slice(i, i + 50).map((c) => limiter(charge(c))));
      assert.ok(decisions.every((d) => d.outcome === 'allowed'));
    }
    const used = process.cpuUsage(before);
    return used.user + used.system;
  };
  try {
    const first = await cpuOf(callers(2_000, 'a'));
    await cpuOf(callers(20_000, 'b'));
    const crowded = await cpuOf(callers(2_000, 'c'));
    t.diagnostic(
      `2,000 new callers: ${Math.round(first / 1000)} ms of CPU first, ${Math.round(crowded / 1000)} ms among 22,000 held blocks`,
    );
    assert.ok(crowded < first * 4, `charges among 22,000 held blocks cost ${crowded} µs against ${first} µs among none`);
    await limiter.release();
    // Every unused token went back: each counter holds exactly what was admitted.
    const minute = WINDOWS.minute(clock.now());
    assert.equal(Number(await redis.client.get(K.rateMinute(WS, minute))), 24_000);
    for (const caller of ['key:a0', 'key:b19999', 'key:c1999'])
      assert.equal(Number(await redis.client.get(K.rateAgentMinute(WS, `tools:${caller}`, minute))), 1, caller);
  } finally {
    await limiter.release();
    conn.disconnect();
  }
});

test('usage a replica counted before its Redis connection dropped is written once the connection is back', async () => {
  // A refill refused before it was written (the connection not writable) wrote nothing: the usage
  // it carried goes with the next call, counted once (docs/operations.md "Leased or exact limits").
  await redis.flush();
  const clock = testClock({ start: Date.UTC(2026, 0, 15, 12, 0, 5) });
  const conn = connectRedis(redis.url, { name: 'dropped', failFast: true });
  // A fail-fast client sends nothing before it is connected (no offline queue), as the gateway's.
  await waitFor(() => conn.status === 'ready', { timeout: 5_000, message: 'the connection' });
  const limiter = createLeasedLimiter(conn, { profile: 'current', scale: SCALE, now: clock.now, tickMs: 0 });
  const charge = (): Charge => ({ workspace: WS, plan: 'FREE', countsAsQuery: false, credential: 'key:k1', keyLimit: null });
  try {
    // The first charge brings a block; all but one token of it is admitted here, counted in memory only.
    let admitted = 0;
    do {
      assert.equal((await limiter(charge())).outcome, 'allowed');
      admitted++;
    } while (limiter.held(WS).minute > 1);
    const id = await conn.client('ID');
    await redis.client.client('KILL', 'ID', String(id));
    await waitFor(() => conn.status !== 'ready', { timeout: 5_000, message: 'the connection to drop' });
    // Two charges with DPoP proofs to claim (which always go to Redis) need more than the token
    // left: the call that would give it back and ask for more is refused before it is written,
    // and the token stays in the block.
    const proved = (jti: string): Charge => ({ ...charge(), proofKey: `svc:test:dpop:${jti}` });
    const refused = await Promise.allSettled([limiter(proved('a')), limiter(proved('b'))]);
    for (const r of refused) assert.match(String(r.status === 'rejected' ? r.reason : r.status), /Stream isn't writeable/);
    assert.equal(limiter.held(WS).minute, 1, 'the token the refused call was to give back is still held');
    await waitFor(() => conn.status === 'ready', { timeout: 5_000, message: 'the connection to come back' });
    await limiter.release();
    const usage = await redis.client.hgetall(K.usage(WS, WINDOWS.month(clock.now())));
    assert.equal(usage['key:k1'], String(admitted), `the ${admitted} admitted requests, counted once`);
  } finally {
    conn.disconnect();
  }
});

test('a replica that drains with charges waiting or a refill out counts what they admit and gives the rest back', async () => {
  // The drain (docs/operations.md "Leased or exact limits") settles what is under way first: a
  // charge still waiting for its turn's call, or one whose call is out, is decided, counted in the
  // usage it writes, and the rest of its block goes back.
  for (const moment of ['waiting for its call', 'its call out'] as const) {
    await redis.flush();
    const clock = testClock({ start: Date.UTC(2026, 0, 15, 12, 0, 5) });
    const conn = connectRedis(redis.url, { name: 'draining' });
    const limiter = createLeasedLimiter(conn, { profile: 'current', scale: SCALE, now: clock.now, tickMs: 0 });
    try {
      const decided = limiter({ workspace: WS, plan: 'FREE', countsAsQuery: false, credential: 'key:k1', keyLimit: null });
      if (moment === 'its call out') await new Promise(setImmediate);
      await limiter.release();
      assert.equal((await decided).outcome, 'allowed', moment);
      assert.equal(
        await redis.client.get(K.rateMinute(WS, WINDOWS.minute(clock.now()))),
        '1',
        `${moment}: the rest of the block given back`,
      );
      const usage = await redis.client.hgetall(K.usage(WS, WINDOWS.month(clock.now())));
      assert.equal(usage['key:k1'], '1', `${moment}: the admitted request counted`);
    } finally {
      conn.disconnect();
    }
  }
});
