/**
 * What a receiver's answer means (docs/webhooks.md "Verdicts"), against a real Redis and real
 * receivers: any 2xx is a delivery whatever its body (empty, past the read bound, a whole HTML
 * page), sent once and never again; 410 Gone disables the endpoint at once, with one
 * `webhook.disabled` audit entry (so a `webhook.disabled` event to the workspace's other endpoints)
 * and no further attempt, until its owner enables it again.
 */
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, test } from 'node:test';
import { connectRedis, createAccounts, type Accounts, type Redis } from '@svc/accounts';
import { outsideLoopBudget, startHttpReceiver, startRedis, testClock, waitFor, type HttpReceiver, type RedisFixture } from '@svc/testkit';
import {
  createWebhookWorker,
  WEBHOOK_MAX_RESPONSE_BYTES,
  WEBHOOK_RETRY_DELAYS_MS,
  WEBHOOK_RETRY_WINDOW_MS,
  WebhookStore,
  webhookSend,
} from '@svc/webhooks';

const PEPPER = 'p'.repeat(40);
const LOOPBACK = [{ address: '127.0.0.1', prefix: 32, family: 'ipv4' as const }];
const MIB = 1024 * 1024;
const PAGE = `<!doctype html><html><head><title>Thanks</title></head><body>${'<p>Your event was received.</p>'.repeat(400)}</body></html>`;

/** The 2xx answers a receiver may give, by path: status, headers, and the body in the pieces it is written in. */
const ANSWERS: Record<string, { status: number; headers?: Record<string, string | number>; body: Buffer[] }> = {
  '/empty': { status: 200, headers: { 'content-length': 0 }, body: [] },
  '/no-content': { status: 204, body: [] },
  '/bound-plus-one-declared': {
    status: 200,
    headers: { 'content-length': WEBHOOK_MAX_RESPONSE_BYTES + 1 },
    body: [Buffer.alloc(WEBHOOK_MAX_RESPONSE_BYTES + 1, 'a')],
  },
  '/bound-plus-one-streamed': { status: 200, body: [Buffer.alloc(WEBHOOK_MAX_RESPONSE_BYTES), Buffer.from('b')] },
  '/mib-declared': { status: 200, headers: { 'content-length': MIB }, body: [Buffer.alloc(MIB, 'c')] },
  '/mib-streamed': { status: 200, body: Array.from({ length: 64 }, () => Buffer.alloc(MIB / 64, 'd')) },
  '/html': { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: [Buffer.from(PAGE)] },
  '/accepted-html': { status: 202, headers: { 'content-type': 'text/html' }, body: [Buffer.from(PAGE)] },
};

let redis: RedisFixture;
let client: Redis;
let accounts: Accounts;
let receiver: HttpReceiver;
let bodiesUrl = '';
/** POSTs the bodies receiver got, by path. */
const hits = new Map<string, number>();
/** Answers `/held` keeps open until the test gives them a status. */
const held: ServerResponse[] = [];
const bodies = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const path = req.url ?? '';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === '/held') return void held.push(res);
    const answer = ANSWERS[path]!;
    // svc stops reading at its bound and closes the connection: the rest of a long body is not wanted.
    res.on('error', () => {});
    res.writeHead(answer.status, answer.headers);
    for (const piece of answer.body) res.write(piece);
    res.end();
  });
});

before(async () => {
  await outsideLoopBudget(async () => {
    redis = await startRedis();
    receiver = await startHttpReceiver();
    await new Promise<void>((ok) => bodies.listen(0, '127.0.0.1', ok));
  });
  bodiesUrl = `http://127.0.0.1:${(bodies.address() as AddressInfo).port}`;
  client = connectRedis(redis.url, { name: 'webhook-verdicts-test' });
  accounts = createAccounts(client, { pepper: PEPPER, bcryptCost: 4 });
});
after(async () => {
  bodies.closeAllConnections();
  await new Promise((ok) => bodies.close(ok));
  await receiver.close();
  client.disconnect();
  await redis.stop();
});
beforeEach(async () => {
  await redis.flush();
  receiver.received.length = 0;
  receiver.answers.length = 0;
  hits.clear();
});

function setup() {
  const clock = testClock({ frozen: false });
  const store = new WebhookStore(client, { pepper: PEPPER }, clock.now);
  const worker = createWebhookWorker({ redis: client, store, send: webhookSend(LOOPBACK), audit: accounts.audit, now: clock.now });
  return { clock, store, worker };
}

async function keyCreated(workspace: string, key: string): Promise<void> {
  await accounts.audit.record({
    workspace,
    actor: 'owner@example.com',
    action: 'key.created',
    target: `key:${key}`,
    source: '203.0.113.9',
    requestId: 'r',
  });
}

test('any 2xx is a delivery whatever its body (none, one byte past the bound, 1 MiB, an HTML page): sent once, never again', async () => {
  const { clock, store, worker } = setup();
  const made = new Map<string, string>();
  // One workspace each, so one turn starts them all (a workspace has at most WEBHOOK_WORKSPACE_SLOTS runs at once).
  for (const path of Object.keys(ANSWERS)) {
    const ws = `ws${path.replaceAll('/', '-')}`;
    made.set(path, (await store.create(ws, { url: `${bodiesUrl}${path}`, events: ['key.created'] }))!.endpoint.id);
    await keyCreated(ws, 'k1');
  }
  await worker.turn();
  for (const [path, id] of made) {
    const ws = `ws${path.replaceAll('/', '-')}`;
    assert.equal(hits.get(path), 1, `${path}: sent once`);
    const log = await store.deliveries(ws, id);
    assert.deepEqual(
      log.map((a) => [a.status, a.error]),
      [[ANSWERS[path]!.status, null]],
      `${path}: one successful attempt`,
    );
    const state = await store.state(ws, id);
    const [newest] = await client.xrevrange(`svc:audit:{${ws}}`, '+', '-', 'COUNT', 1);
    assert.deepEqual([state.cursor, state.attempts, state.nextAt, state.failing, state.lastError], [newest![0], 0, 0, false, '']);
  }
  // Past the first retry's wait: nothing is sent again.
  clock.advance(WEBHOOK_RETRY_DELAYS_MS[0] + 1);
  await worker.turn();
  for (const path of made.keys()) assert.equal(hits.get(path), 1, `${path}: not sent again`);
});

test('410 Gone disables the endpoint at once, with one audit entry and a webhook.disabled event; nothing more is sent until it is enabled', async () => {
  const { clock, store, worker } = setup();
  const gone = (await store.create('acme', { url: `${receiver.url}?token=s3cret`, events: ['key.created'] }))!;
  const watcher = (await store.create('acme', { url: `${bodiesUrl}/empty`, events: ['webhook.disabled'] }))!;
  await keyCreated('acme', 'k1');
  receiver.answers.push(410);
  await worker.turn();
  assert.equal(receiver.received.length, 1);
  const endpoint = (await store.get('acme', gone.endpoint.id))!;
  assert.equal(endpoint.enabled, false, 'disabled at once');
  assert.match(endpoint.state.lastError, /410 Gone/);
  const [row] = await store.deliveries('acme', gone.endpoint.id);
  assert.equal(row!.status, 410);

  const entries = (await accounts.audit.page('acme', { action: 'webhook.disabled' })).entries;
  assert.equal(entries.length, 1, 'one audit entry');
  assert.equal(entries[0]!.actor, 'svc');
  assert.equal(entries[0]!.target, `webhook:${gone.endpoint.id} (${new URL(receiver.url).origin})`, 'the origin only, never the token');
  assert.deepEqual(entries[0]!.detail, { status: '410' });

  // The workspace's other endpoint hears of it; the disabled one gets nothing more, whatever comes and however long.
  await worker.turn();
  assert.equal(hits.get('/empty'), 1, 'the webhook.disabled event went to the endpoint subscribed to it');
  await keyCreated('acme', 'k2');
  for (const wait of [WEBHOOK_RETRY_DELAYS_MS[0], WEBHOOK_RETRY_WINDOW_MS]) {
    clock.advance(wait + 1);
    await worker.turn();
  }
  assert.equal(receiver.received.length, 1, 'no further attempt');
  assert.equal((await store.deliveries('acme', gone.endpoint.id)).length, 1);
  assert.equal((await accounts.audit.page('acme', { action: 'webhook.disabled' })).entries.length, 1);
  assert.equal((await store.deliveries('acme', watcher.endpoint.id)).length, 1);

  // Enabled again by its owner, it resumes at the event it stopped on.
  await store.update('acme', gone.endpoint.id, { enabled: true });
  await worker.turn();
  const targets = receiver.received.map((r) => (JSON.parse(r.body) as { data: { target: string } }).data.target);
  assert.deepEqual(targets, ['key:k1', 'key:k1', 'key:k2']);
  assert.equal(receiver.received[0]!.headers['webhook-id'], receiver.received[1]!.headers['webhook-id'], 'the same event, the same id');
});

test('410 to a URL the owner has changed meanwhile does not disable the new one', async () => {
  const { store, worker } = setup();
  const made = (await store.create('acme', { url: `${bodiesUrl}/held`, events: ['key.created'] }))!;
  await keyCreated('acme', 'k1');
  const runs = await worker.dispatch();
  // The owner moves the endpoint while the old receiver's answer, a 410, is on its way.
  const answer = await waitFor(() => held.shift(), 'the delivery to reach the old receiver');
  await store.update('acme', made.endpoint.id, { url: receiver.url });
  answer.writeHead(410).end();
  await Promise.all(runs.map((r) => r.done));
  assert.equal((await store.get('acme', made.endpoint.id))!.enabled, true);
  assert.deepEqual((await accounts.audit.page('acme', { action: 'webhook.disabled' })).entries, []);
});
