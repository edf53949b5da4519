/**
 * Fair delivery (docs/webhooks.md "Fair delivery"), against a real Redis and real receivers: however
 * many idle endpoints and slow ones of other workspaces come before it, one tenant's event goes out
 * within a bounded number of the worker's turns. Idle endpoints take no slot, a workspace has at
 * most WEBHOOK_WORKSPACE_SLOTS runs in flight, and the walk resumes where the last turn stopped, so
 * no endpoint is started twice before the tenant's. Counted in turns and starts, never in time: the
 * test drives each turn itself (`dispatch`) and moves the worker's clock past the runs' deadline.
 */
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { connectRedis, createAccounts, type Accounts, type Redis } from '@svc/accounts';
import { outsideLoopBudget, startHttpReceiver, startRedis, testClock, waitFor, type HttpReceiver, type RedisFixture } from '@svc/testkit';
import {
  createWebhookWorker,
  WEBHOOK_CONCURRENCY,
  WEBHOOK_ENDPOINT_RUN_MS,
  WEBHOOK_MAX_ENDPOINTS,
  WEBHOOK_WORKSPACE_SLOTS,
  WebhookStore,
  webhookSend,
  type WebhookRun,
} from '@svc/webhooks';

const PEPPER = 'p'.repeat(40);
const LOOPBACK = [{ address: '127.0.0.1', prefix: 32, family: 'ipv4' as const }];
/** Workspaces that may become the tenant's: the one the walk reaches last is. */
const CANDIDATES = 8;
/** A slow receiver answers each POST after this long. */
const SLOW_MS = 25;

let redis: RedisFixture;
let client: Redis;
let accounts: Accounts;
let tenant: HttpReceiver;
/** Receives what idle endpoints would be sent: nothing, ever. */
let idle: HttpReceiver;
/** `/slow` answers 200 after SLOW_MS; `/hang` never answers until the test hangs up. */
let slowUrl = '';
let hangUrl = '';
const held: ServerResponse[] = [];
const slowServer = createServer((req, res) => {
  req.resume();
  if (req.url === '/hang') held.push(res);
  else setTimeout(() => res.end('ok'), SLOW_MS).unref();
});

before(async () => {
  await outsideLoopBudget(async () => {
    redis = await startRedis();
    tenant = await startHttpReceiver();
    idle = await startHttpReceiver();
    await new Promise<void>((ok) => slowServer.listen(0, '127.0.0.1', ok));
  });
  const port = (slowServer.address() as AddressInfo).port;
  slowUrl = `http://127.0.0.1:${port}/slow`;
  hangUrl = `http://127.0.0.1:${port}/hang`;
  client = connectRedis(redis.url, { name: 'fair-delivery-test' });
  accounts = createAccounts(client, { pepper: PEPPER, bcryptCost: 4 });
});
after(async () => {
  hangUp();
  slowServer.closeAllConnections();
  await new Promise((ok) => slowServer.close(ok));
  await tenant.close();
  await idle.close();
  client.disconnect();
  await redis.stop();
});

/** Ends every request the `/hang` receiver holds (the delivery fails with a reset connection). */
function hangUp(): void {
  for (const res of held.splice(0)) res.socket?.destroy();
}

/** A small seeded generator (mulberry32), so a failing case can be named and run again. */
function random(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

interface Case {
  /** Idle endpoints: nothing after their cursor. */
  idle: number;
  /** Slow endpoints, each with more events queued than the test has turns. */
  slow: number;
  /** Endpoints per workspace, for the idle and the slow ones alike (1..WEBHOOK_MAX_ENDPOINTS). */
  perWorkspace: number;
  /** Every `hangEvery`-th slow endpoint never answers (0: none). */
  hangEvery: number;
}

/** Fixed edge cases, then generated ones: 0..50 idle, 0..24 slow, packed or spread across workspaces. */
function cases(): Case[] {
  const out: Case[] = [
    { idle: 0, slow: 0, perWorkspace: 1, hangEvery: 0 },
    { idle: 50, slow: 0, perWorkspace: WEBHOOK_MAX_ENDPOINTS, hangEvery: 0 },
    { idle: 20, slow: 0, perWorkspace: 1, hangEvery: 0 },
    { idle: 0, slow: 16, perWorkspace: 1, hangEvery: 0 },
    { idle: 0, slow: 16, perWorkspace: 1, hangEvery: 1 },
    { idle: 50, slow: 16, perWorkspace: 4, hangEvery: 2 },
    { idle: 25, slow: 24, perWorkspace: 1, hangEvery: 3 },
  ];
  const pick = random(0x5eed);
  for (let i = 0; i < 6; i++)
    out.push({ idle: pick(51), slow: pick(25), perWorkspace: 1 + pick(WEBHOOK_MAX_ENDPOINTS), hangEvery: pick(4) });
  return out;
}

/** Endpoints spread over workspaces `<prefix>-<n>`, `perWorkspace` to each; their ids in order made. */
async function endpoints(store: WebhookStore, prefix: string, count: number, perWorkspace: number, url: (i: number) => string) {
  const made: { workspace: string; id: string }[] = [];
  for (let i = 0; i < count; i++) {
    const workspace = `${prefix}-${Math.floor(i / perWorkspace)}`;
    made.push({ workspace, id: (await store.create(workspace, { url: url(i), events: ['key.created'] }))!.endpoint.id });
  }
  return made;
}

async function keyCreated(workspace: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++)
    await accounts.audit.record({
      workspace,
      actor: 'owner@example.com',
      action: 'key.created',
      target: `key:k${i}`,
      source: '203.0.113.9',
      requestId: 'r',
    });
}

for (const c of cases()) {
  const name = `idle ${c.idle}, slow ${c.slow} (${c.perWorkspace} per workspace, every ${c.hangEvery || 'no'} one hanging)`;
  test(`fair delivery: ${name}: the tenant's event within ${1 + Math.ceil(c.slow / WEBHOOK_CONCURRENCY)} turns`, async () => {
    await redis.flush();
    tenant.received.length = 0;
    idle.received.length = 0;
    const clock = testClock({ frozen: false });
    const now = clock.now;
    const store = new WebhookStore(client, { pepper: PEPPER }, now);
    const worker = createWebhookWorker({ redis: client, store, send: webhookSend(LOOPBACK), audit: accounts.audit, now });
    const maxTurns = 1 + Math.ceil(c.slow / WEBHOOK_CONCURRENCY);

    // Made first, so they are ahead of the tenant wherever the walk begins.
    const idles = await endpoints(store, 'idle', c.idle, c.perWorkspace, () => idle.url);
    const slows = await endpoints(store, 'slow', c.slow, c.perWorkspace, (i) => (c.hangEvery && i % c.hangEvery === 0 ? hangUrl : slowUrl));
    for (const ws of new Set(slows.map((s) => s.workspace))) await keyCreated(ws, maxTurns + 2);
    // The tenant is whichever of a few candidates the walk reaches last (the order of the
    // workspaces' set); the others stay idle.
    const candidates = await endpoints(store, 'tenant', CANDIDATES, 1, () => idle.url);
    const order: string[] = [];
    for await (const ws of store.workspaces()) order.push(ws);
    const mine = candidates.reduce((a, b) => (order.indexOf(b.workspace) > order.indexOf(a.workspace) ? b : a));
    await store.update(mine.workspace, mine.id, { url: tenant.url });
    await keyCreated(mine.workspace, 1);
    const ahead = order.indexOf(mine.workspace);

    const idleIds = new Set([...idles, ...candidates].filter((e) => e !== mine).map((e) => e.id));
    const starts: WebhookRun[] = [];
    /** Turns that started more runs than the pool, or than a workspace's share of it. */
    const overShare: string[] = [];
    let turns = 0;
    try {
      while (tenant.received.length === 0) {
        turns++;
        assert.ok(
          turns <= maxTurns,
          `the tenant's event (${ahead} of ${order.length} workspaces ahead of it) was not delivered in ${maxTurns} turns; started: ${starts.map((r) => r.workspace).join(' ')}`,
        );
        const runs = await worker.dispatch();
        // Every run started now ends after its send in flight (docs/webhooks.md "Fair delivery": a run's deadline).
        clock.advance(WEBHOOK_ENDPOINT_RUN_MS + 1);
        starts.push(...runs);
        if (runs.length > WEBHOOK_CONCURRENCY) overShare.push(`turn ${turns}: ${runs.length} runs at once`);
        const perWorkspace = new Map<string, number>();
        for (const r of runs) perWorkspace.set(r.workspace, (perWorkspace.get(r.workspace) ?? 0) + 1);
        for (const [ws, n] of perWorkspace) if (n > WEBHOOK_WORKSPACE_SLOTS) overShare.push(`turn ${turns}: ${ws} had ${n} runs at once`);
        // The turn's runs end before the next turn: the slow ones by their deadline, the hanging
        // ones when their receiver hangs up (a delivery that failed, retried after its backoff).
        let ended = false;
        void Promise.all(runs.map((r) => r.done)).then(() => (ended = true));
        await waitFor(
          () => {
            hangUp();
            return ended;
          },
          { message: `turn ${turns}'s runs to end`, timeout: 15_000 },
        );
      }
      assert.equal(tenant.received.length, 1, 'delivered once');
      assert.deepEqual(overShare, [], "no turn started more than the pool or a workspace's share");
      assert.deepEqual(
        starts.filter((r) => idleIds.has(r.endpoint)),
        [],
        'idle endpoints take no slot',
      );
      assert.equal(idle.received.length, 0);
      const before = starts.slice(
        0,
        starts.findIndex((r) => r.endpoint === mine.id),
      );
      const twice = before.filter((r, i) => before.findIndex((o) => o.endpoint === r.endpoint) !== i);
      assert.deepEqual(twice, [], 'no endpoint was started twice before the tenant');
    } finally {
      let stopped = false;
      void worker.stop().then(() => (stopped = true));
      await waitFor(
        () => {
          hangUp();
          return stopped;
        },
        { message: 'the worker to stop', timeout: 15_000 },
      );
    }
  });
}
