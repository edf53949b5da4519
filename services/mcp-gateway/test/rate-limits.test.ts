/** Plan rate limits and monthly quotas (docs/contract.md "Plans and limits"). */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import { K, USAGE_DAY_TTL_SECONDS, WINDOWS } from '@svc/accounts';
import { planLimits } from '@svc/policy';
import { freePort, GiveUp, testClock, waitFor } from '@svc/testkit';
import { call, post, rpc, seed, startFixture, type GatewayFixture } from './support.ts';

// The gateway runs on a frozen clock 10 s into a minute: every test's requests fall in one minute
// window whatever the real time, with no wait for a window edge. (Each test seeds its own workspace.)
const clock = testClock({ start: Date.UTC(2026, 0, 15, 12, 0, 10) });
let f: GatewayFixture;
before(async () => {
  f = await startFixture({}, { now: clock.now });
});
after(() => f.close());

const month = () => {
  const d = new Date(clock.now());
  return `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
};
const firstOfNextMonth = () => {
  const d = new Date(clock.now());
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
};

test('every authenticated response carries the rate-limit headers', async () => {
  const s = await seed(f.accounts, { plan: 'PRO' });
  const res = await post(f.url, `/mcp/${s.project}`, rpc('ping'), { 'X-API-Key': s.key });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('x-ratelimit-limit'), '120');
  assert.equal(res.headers.get('x-ratelimit-remaining'), '119');
  const reset = Number(res.headers.get('x-ratelimit-reset'));
  assert.equal(reset, Math.floor(clock.now() / 60_000) * 60 + 60, 'reset is the end of the minute');
  assert.equal(res.headers.get('ratelimit-policy'), '"minute";q=120;w=60');
  assert.equal(res.headers.get('ratelimit'), '"minute";r=119;t=50');
});

test('the limit-plus-first request of a FREE workspace gets 429 with Retry-After', async () => {
  const s = await seed(f.accounts, { plan: 'FREE' });
  for (let i = 1; i <= 30; i++) {
    const res = await post(f.url, `/mcp/${s.project}`, rpc('ping', undefined, i), { 'X-API-Key': s.key });
    assert.equal(res.status, 200, `request ${i}`);
    assert.equal(res.headers.get('x-ratelimit-remaining'), String(30 - i));
  }
  const res = await post(f.url, `/mcp/${s.project}`, rpc('ping', undefined, 31), { 'X-API-Key': s.key });
  assert.equal(res.status, 429);
  assert.equal(res.body.error.message, 'Rate limit exceeded');
  assert.equal(res.body.error.data.code, 'rate_limited');
  assert.equal(res.body.id, 31);
  assert.equal(res.headers.get('retry-after'), '50', 'the seconds left in the minute');
  assert.equal(res.headers.get('x-ratelimit-remaining'), '0');
  // The MCP draft's shape for a limit (docs/errors.md "Limit refusals"), beside svc's own code.
  assert.equal(res.body.error.code, -31020);
  assert.deepEqual([res.body.error.data.retryAfterMs, res.body.error.data.limit, res.body.error.data.remaining], [50_000, 30, 0]);
  assert.deepEqual([res.headers.get('ratelimit-limit'), res.headers.get('ratelimit-remaining')], ['30', '0']);
});

test('limits belong to the workspace: two projects of one workspace share them', async () => {
  const s = await seed(f.accounts, { plan: 'FREE' });
  await f.accounts.workspaces.createProject({ slug: `${s.project}-b`, workspace: s.workspace });
  const k2 = await f.accounts.keys.createProjectKey({ project: `${s.project}-b`, workspace: s.workspace, level: 'VIEWER', name: 'b' });
  for (let i = 0; i < 15; i++) await post(f.url, `/mcp/${s.project}`, rpc('ping'), { 'X-API-Key': s.key });
  const res = await post(f.url, `/mcp/${s.project}-b`, rpc('ping'), { 'X-API-Key': k2.key });
  assert.equal(res.headers.get('x-ratelimit-remaining'), '14');
});

test('a rejected request consumes neither counter', async () => {
  const s = await seed(f.accounts, { plan: 'FREE' });
  await f.redis.client.set(K.rateMonth(s.workspace, month()), '500');
  for (let i = 0; i < 30; i++) await post(f.url, `/mcp/${s.project}`, rpc('ping'), { 'X-API-Key': s.key });
  for (let i = 0; i < 5; i++) {
    const res = await post(f.url, `/mcp/${s.project}`, call('svc_help'), { 'X-API-Key': s.key });
    assert.equal(res.status, 429);
  }
  const minute = Math.floor(clock.now() / 60_000);
  assert.equal(await f.redis.client.get(K.rateMinute(s.workspace, minute)), '30');
  assert.equal(await f.redis.client.get(K.rateMonth(s.workspace, month())), '500');
});

test('a leased replica that stops gives its unused blocks back and writes the usage it counted', async () => {
  // Leased limits (docs/operations.md "Leased or exact limits"): blocks held in the replica's
  // memory, usage written with its next call. Stopping must leave neither stranded.
  const g = await startFixture({ RATE_LIMIT_MODE: 'leased' }, { now: clock.now });
  try {
    const s = await seed(g.accounts, { plan: 'PRO' });
    const replica = await g.startReplica();
    for (let i = 0; i < 3; i++)
      assert.equal((await post(replica.url, `/mcp/${s.project}`, call('svc_help'), { 'X-API-Key': s.key })).status, 200);
    const minute = K.rateMinute(s.workspace, Math.floor(clock.now() / 60_000));
    assert.ok(Number(await g.redis.client.get(minute)) > 3, 'the replica holds a block beyond what it admitted');
    await replica.close();
    assert.equal(await g.redis.client.get(minute), '3', 'only what was admitted stays reserved');
    const usage = await g.redis.client.hgetall(K.usage(s.workspace, month()));
    assert.equal(usage['tool:svc_help'], '3', 'the calls counted before the stop are written');
  } finally {
    await g.close();
  }
});

test('tools/call counts one monthly query; svc_help, svc_request_access and other methods do not', async () => {
  const s = await seed(f.accounts, { plan: 'PRO', level: 'VIEWER' });
  await post(f.url, `/mcp/${s.project}`, call('svc_help'), { 'X-API-Key': s.key });
  await post(f.url, `/mcp/${s.project}`, call('svc_request_access', { requested_level: 'EDITOR', reason: 'write docs' }), {
    'X-API-Key': s.key,
  });
  await post(f.url, `/mcp/${s.project}`, rpc('tools/list'), { 'X-API-Key': s.key });
  assert.equal(await f.redis.client.get(K.rateMonth(s.workspace, month())), null);
});

test('an exhausted monthly quota answers 429 "Monthly query limit reached" until the 1st, 00:00 UTC', async () => {
  const s = await seed(f.accounts, { plan: 'FREE', level: 'VIEWER' });
  const counting = [...f.gw.gateway.registry.all()].find(
    (t) => t.policy.countsAsQuery && t.policy.level === 'VIEWER' && t.policy.plan === 'FREE',
  );
  if (!counting) {
    // Until a counting tool is registered, exercise the limiter directly through the Lua script.
    const { createRateLimiter } = await import('../src/ratelimit/rate-limiter.ts');
    const limiter = createRateLimiter(f.redis.client, { profile: 'current', scale: 1, now: clock.now });
    await f.redis.client.set(K.rateMonth(s.workspace, month()), '1000');
    const d = await limiter({ workspace: s.workspace, plan: 'FREE', countsAsQuery: true, credential: 'key:k1' });
    assert.equal(d.outcome, 'quota_exhausted');
    assert.equal(clock.now() + d.retryAfter * 1000, firstOfNextMonth());
    assert.equal(
      (await limiter({ workspace: s.workspace, plan: 'FREE', countsAsQuery: false, credential: 'key:k1' })).outcome,
      'allowed',
      'non-query requests still pass',
    );
    return;
  }
  await f.redis.client.set(K.rateMonth(s.workspace, month()), '1000');
  const res = await post(f.url, `/mcp/${s.project}`, call(counting.def.name, { query: 'x' }), { 'X-API-Key': s.key });
  assert.equal(res.status, 429);
  assert.equal(res.body.error.message, 'Monthly query limit reached');
  assert.equal(res.body.error.data.code, 'quota_exhausted');
  assert.equal(clock.now() + Number(res.headers.get('retry-after')) * 1000, firstOfNextMonth(), 'Retry-After ends at the 1st, 00:00 UTC');
  assert.equal(res.body.error.data.retryAfterMs, Number(res.headers.get('retry-after')) * 1000);
  assert.deepEqual([res.body.error.data.limit, res.body.error.data.remaining], [1000, 0]);
  const help = await post(f.url, `/mcp/${s.project}`, call('svc_help'), { 'X-API-Key': s.key });
  assert.equal(help.status, 200, 'svc_help is not a query and still works');
});

test('ENTERPRISE quota is fair use: never blocked, counted in a metric', async () => {
  const { createRateLimiter } = await import('../src/ratelimit/rate-limiter.ts');
  const limiter = createRateLimiter(f.redis.client, { profile: 'current', scale: 1, now: clock.now });
  await f.redis.client.set(K.rateMonth('ent-ws', month()), '500000');
  const d = await limiter({ workspace: 'ent-ws', plan: 'ENTERPRISE', countsAsQuery: true, credential: 'key:k1' });
  assert.equal(d.outcome, 'allowed');
  assert.equal(d.overFairUse, true);
});

test('charges made together share one Redis call, decided in arrival order, exactly as separate calls', async () => {
  const { createRateLimiter } = await import('../src/ratelimit/rate-limiter.ts');
  const client = f.redis.client.duplicate();
  try {
    const sent: string[] = [];
    const send = client.sendCommand.bind(client);
    client.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
      sent.push(command.name);
      return (send as (...a: unknown[]) => unknown)(command, ...rest);
    }) as typeof client.sendCommand;
    const limiter = createRateLimiter(client, { profile: 'current', scale: 1, now: clock.now });
    // FREE: 30 a minute. One key with its own limit of 3, the others without; two workspaces.
    const charges = Array.from({ length: 40 }, (_, i) => ({
      workspace: 'batch-a',
      plan: 'FREE' as const,
      countsAsQuery: i % 6 < 3, // runs of charges alike, broken by k0's
      credential: `key:k${i % 7 === 0 ? 0 : 1 + (i % 2)}`,
      keyLimit: i % 7 === 0 ? { keyId: 'k0', perMinute: 3 } : null,
      tool: 'svc_help',
    }));
    const other = { workspace: 'batch-b', plan: 'FREE' as const, countsAsQuery: false, credential: 'key:kb' };
    await limiter(other); // loads the script: what follows is the batch alone
    sent.length = 0;
    const decisions = await Promise.all([...charges.map((c) => limiter(c)), limiter(other)]);
    assert.deepEqual(sent, ['evalsha', 'evalsha'], 'one call per workspace, whatever the number of charges');
    // The same charges one at a time, on a fresh workspace: the same outcomes in the same order.
    const oneByOne = [];
    for (const c of charges) oneByOne.push(await limiter({ ...c, workspace: 'batch-c' }));
    const shape = (d: (typeof decisions)[number]) => [d.outcome, d.remaining, d.byKeyLimit, d.monthlyUsed];
    assert.deepEqual(decisions.slice(0, 40).map(shape), oneByOne.map(shape));
    const batch = decisions.slice(0, 40);
    assert.equal(batch.filter((d) => d.outcome === 'allowed').length, 30, 'the plan admits 30 in all');
    // k0's 4th and 5th are past its own limit; its 6th comes after the plan's 30th admission.
    assert.equal(batch.filter((d) => d.byKeyLimit).length, 2);
    assert.equal(decisions[40]!.remaining, 28, 'the other workspace is counted on its own');
    const usage = await f.redis.client.hgetall(K.usage('batch-a', month()));
    assert.equal(Number(usage['tool:svc_help']), 30, 'usage counts admitted requests only');
  } finally {
    client.disconnect();
  }
});

test("the day's usage hash is counted in the same call as the month's: per key and per tool, with its TTL", async () => {
  const { createRateLimiter } = await import('../src/ratelimit/rate-limiter.ts');
  const client = f.redis.client.duplicate();
  try {
    const sent: string[] = [];
    const send = client.sendCommand.bind(client);
    client.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
      sent.push(command.name);
      return (send as (...a: unknown[]) => unknown)(command, ...rest);
    }) as typeof client.sendCommand;
    const limiter = createRateLimiter(client, { profile: 'current', scale: 1, now: clock.now });
    await limiter({ workspace: 'day-warm', plan: 'PRO', countsAsQuery: false, credential: 'key:w' }); // loads the script
    sent.length = 0;
    const charge = (i: number) => ({
      workspace: 'day-a',
      plan: 'PRO' as const,
      countsAsQuery: true,
      credential: `key:k${i % 2}`,
      tool: i % 3 === 0 ? 'svc_help' : null,
    });
    await Promise.all(Array.from({ length: 9 }, (_, i) => limiter(charge(i))));
    assert.deepEqual(sent, ['evalsha'], 'the day counters cost no extra round trip');
    const day = K.usageDay('day-a', WINDOWS.day(clock.now()));
    assert.deepEqual(await f.redis.client.hgetall(day), { 'key:k0': '5', 'key:k1': '4', 'tool:svc_help': '3' });
    assert.deepEqual(
      await f.redis.client.hgetall(day),
      await f.redis.client.hgetall(K.usage('day-a', month())),
      'the same counts as the month',
    );
    const ttl = await f.redis.client.ttl(day);
    assert.ok(ttl > USAGE_DAY_TTL_SECONDS - 60 && ttl <= USAGE_DAY_TTL_SECONDS, `TTL ${ttl}`);
    assert.equal(USAGE_DAY_TTL_SECONDS, 32 * 86_400);
    // A later batch of the same day keeps the TTL the first one set (it is not pushed on).
    await f.redis.client.expire(day, 1000);
    await limiter(charge(1));
    assert.equal(await f.redis.client.ttl(day), 1000);
    assert.equal(await f.redis.client.hget(day, 'key:k1'), '5');
  } finally {
    client.disconnect();
  }
});

test('a workspace whose plan changes within one batch is decided in order, each charge under its own plan', async () => {
  const { createRateLimiter } = await import('../src/ratelimit/rate-limiter.ts');
  const limiter = createRateLimiter(f.redis.client, { profile: 'current', scale: 1, now: clock.now });
  const charge = (plan: 'FREE' | 'PRO') => ({ workspace: 'plan-change', plan, countsAsQuery: false, credential: 'key:p' });
  const decisions = await Promise.all([charge('FREE'), charge('FREE'), charge('PRO'), charge('FREE')].map((c) => limiter(c)));
  assert.deepEqual(
    decisions.map((d) => [d.limit, d.remaining]),
    [
      [30, 29],
      [30, 28],
      [planLimits('PRO').requestsPerMinute, planLimits('PRO').requestsPerMinute - 3],
      [30, 26],
    ],
    'one minute counter, counted in arrival order; each answer under the plan it was charged with',
  );
});

test('the earlier profile and RATE_LIMIT_SCALE change the limits', async () => {
  const g = await startFixture({ RATE_LIMIT_PROFILE: 'earlier', RATE_LIMIT_SCALE: '3' });
  try {
    const s = await seed(g.accounts, { plan: 'FREE' });
    const res = await post(g.url, `/mcp/${s.project}`, rpc('ping'), { 'X-API-Key': s.key });
    assert.equal(res.headers.get('x-ratelimit-limit'), '30');
  } finally {
    await g.close();
  }
});

/** A gateway process (main.ts) on `port`, stopped after the test `t`. */
async function spawnGateway(port: number, t: TestContext): Promise<ChildProcess> {
  const root = resolve(import.meta.dirname, '../../..');
  const child = spawn(resolve(root, 'scripts/node'), ['services/mcp-gateway/src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      REDIS_URL: f.redis.url,
      BASE_URL: `http://127.0.0.1:${port}`,
      AUTH_URL: 'http://127.0.0.1:1',
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  t.after(() => void child.kill('SIGTERM'));
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new GiveUp(`gateway process exited (${child.exitCode}): ${stderr}`);
      return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
    },
    { timeout: 15_000, interval: 50, message: () => `the gateway process on port ${port} to be healthy: ${stderr}` },
  );
  return child;
}

test('two gateway processes sharing one Redis admit exactly the limit together', async (t) => {
  const [p1, p2] = [await freePort(), await freePort()];
  await Promise.all([spawnGateway(p1, t), spawnGateway(p2, t)]);
  // These processes count in the real minute. A burst that straddles a minute boundary is split
  // over two windows, so it runs again (a burst takes far less than a minute: twice at most).
  const minute = () => Math.floor(Date.now() / 60_000);
  let statuses: number[];
  for (let attempt = 1; ; attempt++) {
    const s = await seed(f.accounts, { plan: 'FREE' });
    const started = minute();
    const requests = Array.from({ length: 60 }, (_, i) =>
      post(`http://127.0.0.1:${i % 2 ? p1 : p2}`, `/mcp/${s.project}`, rpc('ping', undefined, i), { 'X-API-Key': s.key }),
    );
    statuses = (await Promise.all(requests)).map((r) => r.status);
    if (minute() === started) break;
    assert.ok(attempt < 3, 'three bursts in a row straddled a minute boundary');
  }
  assert.equal(statuses.filter((c) => c === 200).length, 30);
  assert.equal(statuses.filter((c) => c === 429).length, 30);
});
