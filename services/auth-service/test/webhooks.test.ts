/**
 * Signed webhooks (docs/webhooks.md) against real local receivers and a real Redis: signatures
 * verified by an independent Standard Webhooks implementation (the `standardwebhooks` npm
 * package), retries with backoff, order per endpoint, secret rotation, the bounds, the lease, and
 * hostile URLs that never open a connection.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { after, before, beforeEach, test } from 'node:test';
import { connectRedis, createAccounts, type Accounts, type AuditAction, type Redis } from '@svc/accounts';
import { loadConfig } from '@svc/config';
import {
  outsideLoopBudget,
  startHttpReceiver,
  startRedis,
  waitFor,
  type HttpReceiver,
  type ReceivedRequest,
  type RedisFixture,
} from '@svc/testkit';
import {
  createWebhookWorker,
  WEBHOOK_LOG_SIZE,
  WEBHOOK_MAX_ENDPOINTS,
  WEBHOOK_RETRY_DELAYS_MS,
  WEBHOOK_RETRY_WINDOW_MS,
  WEBHOOK_ROTATION_OVERLAP_MS,
  WebhookStore,
  webhookSend,
  type WebhookWorker,
} from '@svc/webhooks';
import { Webhook } from 'standardwebhooks';
import { startAuth } from './support.ts';

const PEPPER = 'p'.repeat(40);
const LOOPBACK = [{ address: '127.0.0.1', prefix: 32, family: 'ipv4' as const }];

let redis: RedisFixture;
let client: Redis;
let accounts: Accounts;
let receiver: HttpReceiver;
let receiverUrl = '';
/** What the receiver got, and what it answers next (then 200): the receiver's own lists. */
let received: ReceivedRequest[] = [];
let answers: number[] = [];
let offset = 0;
const now = () => Date.now() + offset;

before(async () => {
  await outsideLoopBudget(async () => {
    redis = await startRedis();
    receiver = await startHttpReceiver();
    ({ url: receiverUrl, received, answers } = receiver);
  });
  client = connectRedis(redis.url, { name: 'webhooks-test' });
  accounts = createAccounts(client, { pepper: PEPPER, bcryptCost: 4 });
});
after(async () => {
  await receiver.close();
  client.disconnect();
  await redis.stop();
});
beforeEach(async () => {
  await redis.flush();
  received.length = 0;
  answers.length = 0;
  offset = 0;
});

function setup(): { store: WebhookStore; worker: WebhookWorker } {
  const store = new WebhookStore(client, { pepper: PEPPER }, now);
  return { store, worker: createWebhookWorker({ redis: client, store, send: webhookSend(LOOPBACK), audit: accounts.audit, now }) };
}

async function audit(ws: string, action: AuditAction, target: string): Promise<void> {
  await accounts.audit.record({ workspace: ws, actor: 'owner@example.com', action, target, source: '203.0.113.9', requestId: 'r1' });
}

test('deliveries are signed as Standard Webhooks say, only subscribed events, in audit order', async () => {
  const { store, worker } = setup();
  const made = await store.create('acme', { url: receiverUrl, events: ['key.created', 'key.revoked', 'key.leaked'] });
  assert.ok(made);
  assert.match(made.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  await audit('acme', 'key.created', 'key:k1');
  await audit('acme', 'member.added', 'user:b@example.com'); // not subscribed
  await audit('acme', 'key.reported', 'key:k1');
  await audit('acme', 'key.revoked', 'key:k1');
  await audit('other', 'key.created', 'key:k9'); // another workspace's log
  await worker.turn();
  const wh = new Webhook(made.secret);
  const events = received.map((r) => wh.verify(r.body, r.headers) as { type: string; data: Record<string, unknown> });
  assert.deepEqual(
    events.map((e) => e.type),
    ['key.created', 'key.leaked', 'key.revoked'],
  );
  assert.equal(events[0]!.data['workspace'], 'acme');
  assert.equal(events[0]!.data['target'], 'key:k1');
  assert.equal(events[0]!.data['source'], undefined, 'the client address is not sent');
  assert.match(received[0]!.headers['webhook-id']!, /^msg_\d+-\d+_acme$/);
  // A wrong secret does not verify: the check is real.
  assert.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(received[0]!.body, received[0]!.headers));
  // Nothing new: the next turn sends nothing again.
  await worker.turn();
  assert.equal(received.length, 3);
  const log = await store.deliveries('acme', made.endpoint.id);
  assert.deepEqual(
    log.map((a) => [a.type, a.status, a.error]),
    [
      ['key.revoked', 200, null],
      ['key.leaked', 200, null],
      ['key.created', 200, null],
    ],
  );
});

test('a delivery that fails is retried after the backoff, and the next event waits for it', async () => {
  const { store, worker } = setup();
  const made = (await store.create('acme', { url: receiverUrl, events: ['member.added', 'member.removed'] }))!;
  await audit('acme', 'member.added', 'user:a@example.com');
  await audit('acme', 'member.removed', 'user:a@example.com');
  answers.push(500);
  await worker.turn();
  assert.equal(received.length, 1, 'the second event waits while the first is retried');
  let state = await store.state('acme', made.endpoint.id);
  assert.equal(state.attempts, 1);
  assert.equal(state.nextAt - now() > WEBHOOK_RETRY_DELAYS_MS[0] - 1000, true);
  await worker.turn();
  assert.equal(received.length, 1, 'not before the backoff');
  offset += WEBHOOK_RETRY_DELAYS_MS[0];
  await worker.turn();
  assert.equal(received.length, 3);
  const types = received.map((r) => (JSON.parse(r.body) as { type: string }).type);
  assert.deepEqual(types, ['member.added', 'member.added', 'member.removed']);
  assert.equal(received[0]!.headers['webhook-id'], received[1]!.headers['webhook-id'], 'a retry keeps its id');
  state = await store.state('acme', made.endpoint.id);
  assert.equal(state.attempts, 0);
  const log = await store.deliveries('acme', made.endpoint.id);
  assert.deepEqual(
    log.map((a) => [a.attempt, a.status]),
    [
      [1, 200],
      [2, 200],
      [1, 500],
    ],
  );
  assert.equal(log[2]!.error, 'the receiver answered 500');
});

test('an endpoint that fails for the whole retry window is marked failing, and resumes where it stopped when enabled', async () => {
  const { store, worker } = setup();
  const made = (await store.create('acme', { url: receiverUrl, events: ['key.created'] }))!;
  await audit('acme', 'key.created', 'key:k1');
  let attempts = 0;
  for (;;) {
    answers.push(503);
    await worker.turn();
    attempts++;
    const state = await store.state('acme', made.endpoint.id);
    if (state.failing) break;
    assert.ok(attempts < 20, 'the retries are bounded');
    offset = state.nextAt - Date.now();
  }
  assert.ok(offset <= WEBHOOK_RETRY_WINDOW_MS, `failing within the window (after ${offset} ms)`);
  const before = received.length;
  offset += WEBHOOK_RETRY_WINDOW_MS;
  await worker.turn();
  assert.equal(received.length, before, 'a failing endpoint is not sent to');
  answers.length = 0;
  await store.update('acme', made.endpoint.id, { enabled: true });
  await worker.turn();
  assert.equal(received.length, before + 1);
  assert.equal((await store.state('acme', made.endpoint.id)).failing, false);
});

test('rotation: during the overlap both secrets sign and each verifies; after it only the new one', async () => {
  const { store, worker } = setup();
  const made = (await store.create('acme', { url: receiverUrl, events: ['key.created'] }))!;
  const rotated = (await store.rotate('acme', made.endpoint.id))!;
  assert.notEqual(rotated.secret, made.secret);
  await audit('acme', 'key.created', 'key:k1');
  await worker.turn();
  const during = received.at(-1)!;
  assert.equal(during.headers['webhook-signature']!.split(' ').length, 2);
  new Webhook(made.secret).verify(during.body, during.headers);
  new Webhook(rotated.secret).verify(during.body, during.headers);
  offset = WEBHOOK_ROTATION_OVERLAP_MS + 1000;
  await audit('acme', 'key.created', 'key:k2');
  await worker.turn();
  const afterOverlap = received.at(-1)!;
  const h = afterOverlap.headers;
  const stamp = new Date(Number(h['webhook-timestamp']) * 1000);
  assert.equal(h['webhook-signature'], new Webhook(rotated.secret).sign(h['webhook-id']!, stamp, afterOverlap.body));
  assert.notEqual(h['webhook-signature'], new Webhook(made.secret).sign(h['webhook-id']!, stamp, afterOverlap.body));
});

test('a test event is sent ahead of the audit entries; the delivery log keeps the newest WEBHOOK_LOG_SIZE', async () => {
  const { store, worker } = setup();
  const made = (await store.create('acme', { url: receiverUrl, events: ['key.created'] }))!;
  assert.equal(await store.queueTest('acme', made.endpoint.id), true);
  assert.equal(await store.queueTest('acme', 'wh_nope'), false);
  await worker.turn();
  const ev = new Webhook(made.secret).verify(received[0]!.body, received[0]!.headers) as { type: string };
  assert.equal(ev.type, 'webhook.test');
  for (let i = 0; i < WEBHOOK_LOG_SIZE + 5; i++) await store.queueTest('acme', made.endpoint.id).then(() => worker.turn());
  assert.equal((await store.deliveries('acme', made.endpoint.id)).length, WEBHOOK_LOG_SIZE);
});

test(`a workspace keeps at most ${WEBHOOK_MAX_ENDPOINTS} endpoints; one workspace's id is nothing in another`, async () => {
  const { store } = setup();
  const ids: string[] = [];
  for (let i = 0; i < WEBHOOK_MAX_ENDPOINTS; i++)
    ids.push((await store.create('acme', { url: receiverUrl, events: ['key.created'] }))!.endpoint.id);
  assert.equal(await store.create('acme', { url: receiverUrl, events: ['key.created'] }), null);
  assert.equal(await store.get('other', ids[0]!), null);
  assert.equal(await store.rotate('other', ids[0]!), null);
  assert.equal(await store.remove('other', ids[0]!), false);
  assert.equal(await store.remove('acme', ids[0]!), true);
  assert.ok(await store.create('acme', { url: receiverUrl, events: ['key.created'] }));
});

test('one worker delivers at a time: a second replica waits for the lease', async () => {
  const { store, worker } = setup();
  const second = createWebhookWorker({ redis: client, store, send: webhookSend(LOOPBACK), audit: accounts.audit, now });
  await store.create('acme', { url: receiverUrl, events: ['key.created'] });
  await worker.turn();
  await audit('acme', 'key.created', 'key:k1');
  await second.turn();
  assert.equal(received.length, 0, 'the lease is held by the first');
  await worker.stop();
  await second.turn();
  assert.equal(received.length, 1, 'released on stop: the second takes over');
});

test('hostile URLs never open a connection (loopback, private, link-local, IPv4-mapped, names resolving to them, redirects)', async () => {
  const trapped: string[] = [];
  const trap = createTcpServer((s) => {
    trapped.push(s.remoteAddress ?? '?');
    s.destroy();
  });
  await outsideLoopBudget(() => new Promise<void>((ok) => trap.listen(0, '::', ok)));
  const port = (trap.address() as AddressInfo).port;
  const names: Record<string, string> = {
    'loop.test': '127.0.0.1',
    'mapped.test': '::ffff:127.0.0.1',
    'private.test': '10.0.0.5',
    'metadata.test': '169.254.169.254',
    'six.test': '::1',
  };
  const resolve = async (host: string) => {
    const address = names[host];
    if (!address) throw new Error(`no such name ${host}`);
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };
  const send = webhookSend([], resolve);
  const hostile = [
    `http://127.0.0.1:${port}/`,
    `http://[::1]:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `http://[::ffff:7f00:1]:${port}/`,
    `http://2130706433:${port}/`,
    `http://0x7f000001:${port}/`,
    `http://0177.0.0.1:${port}/`,
    `http://0.0.0.0:${port}/`,
    `http://10.1.2.3:${port}/`,
    `http://192.168.1.1:${port}/`,
    `http://169.254.169.254:${port}/latest/meta-data/`,
    `http://[fe80::1]:${port}/`,
    `http://[fd00::1]:${port}/`,
    ...Object.keys(names).map((n) => `http://${n}:${port}/`),
    `ftp://example.com/`,
  ];
  for (const url of hostile) {
    await assert.rejects(send(url, { headers: {}, body: '{}' }), Error, url);
  }
  // A receiver the operator allows that redirects to a forbidden address: the redirect is not followed.
  const redirecting = createServer((_req, res) => {
    res.writeHead(307, { location: `http://127.0.0.1:${port}/` });
    res.end();
  });
  await outsideLoopBudget(() => new Promise<void>((ok) => redirecting.listen(0, '127.0.0.1', ok)));
  const r = await webhookSend(LOOPBACK)(`http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/`, { headers: {}, body: '{}' });
  assert.equal(r.status, 307);
  redirecting.close();
  trap.close();
  assert.deepEqual(trapped, [], 'no connection reached the trap');
});

test('WEBHOOK_ALLOWED_PRIVATE is read as CIDR blocks and a wrong one stops the start, naming the variable', () => {
  const base = { NODE_ENV: 'test', REDIS_URL: 'redis://127.0.0.1:1' };
  assert.deepEqual(loadConfig(base).webhookAllowedPrivate, []);
  assert.equal(loadConfig(base).webhooks, true);
  assert.deepEqual(loadConfig({ ...base, WEBHOOK_ALLOWED_PRIVATE: '10.1.0.0/16, fd00::/8' }).webhookAllowedPrivate, [
    { address: '10.1.0.0', prefix: 16, family: 'ipv4' },
    { address: 'fd00::', prefix: 8, family: 'ipv6' },
  ]);
  for (const bad of ['10.1.0.0', '10.1.0.0/33', 'fd00::/129', 'example.com/8', '10.0.0.0/x'])
    assert.throws(() => loadConfig({ ...base, WEBHOOK_ALLOWED_PRIVATE: bad }), /WEBHOOK_ALLOWED_PRIVATE/, bad);
});

test('the auth-service runs the worker (WEBHOOKS=on by default) and delivers through its guarded client', async () => {
  const f = await outsideLoopBudget(() => startAuth({ env: { WEBHOOK_ALLOWED_PRIVATE: '127.0.0.1/32', KEY_PEPPER: PEPPER } }));
  try {
    const store = new WebhookStore(f.client, { pepper: f.config.keyPepper });
    const made = (await store.create('acme', { url: receiverUrl, events: ['key.revoked'] }))!;
    await f.accounts.audit.record({
      workspace: 'acme',
      actor: 'o@example.com',
      action: 'key.revoked',
      target: 'key:k1',
      source: 's',
      requestId: 'r',
    });
    await waitFor(() => received.length === 1, { message: 'the auth-service to deliver the event', timeout: 10_000 });
    new Webhook(made.secret).verify(received[0]!.body, received[0]!.headers);
  } finally {
    await f.close();
  }
});

test('a refused address reaches the delivery log and last_error only as a fixed text, the same as a name that does not resolve; the operator log has the address', async () => {
  const store = new WebhookStore(client, { pepper: PEPPER }, now);
  const operator: unknown[] = [];
  const resolve = async (host: string) => {
    if (host !== 'internal-billing.corp.test') throw Object.assign(new Error(`queryA ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return [{ address: '10.20.30.40', family: 4 }];
  };
  const worker = createWebhookWorker({
    redis: client,
    store,
    send: webhookSend([], resolve, (err) => operator.push(err)),
    audit: accounts.audit,
    now,
  });
  const made = (await store.create('acme', { url: 'https://internal-billing.corp.test:8443/hook', events: ['key.created'] }))!;
  const unknown = (await store.create('acme', { url: 'https://no-such-host.corp.test:8443/hook', events: ['key.created'] }))!;
  await audit('acme', 'key.created', 'key:k1');
  await worker.turn();
  const [row] = await store.deliveries('acme', made.endpoint.id);
  assert.equal(row!.error, 'refused: the host does not resolve to a public address');
  const state = await store.state('acme', made.endpoint.id);
  assert.equal(state.lastError, 'refused: the host does not resolve to a public address');
  const [other] = await store.deliveries('acme', unknown.endpoint.id);
  assert.equal(other!.error, row!.error, 'which internal names exist cannot be told from the log');
  assert.ok(!JSON.stringify([row, state]).includes('10.20.30.40'), 'the internal address is not shown to the tenant');
  assert.ok(
    operator.some((err) => /10\.20\.30\.40/.test(String(err))),
    'the operator log names it',
  );
});

test('an update copies only url, events, description and enabled: the secret and creation time stay', async () => {
  const { store } = setup();
  const made = (await store.create('acme', { url: receiverUrl, events: ['key.created'] }))!;
  const hostile = { enabled: false, secret: 'attacker', createdAt: 1, id: 'wh_other', previousSecret: 'x', previousUntil: 9e15 };
  const updated = (await store.update('acme', made.endpoint.id, hostile as never))!;
  assert.deepEqual([updated.id, updated.createdAt, updated.enabled], [made.endpoint.id, made.endpoint.createdAt, false]);
  assert.deepEqual(await store.signingSecrets('acme', made.endpoint.id), [made.secret]);
});

test("a slow receiver does not hold back another workspace's deliveries", async () => {
  // Each POST to it answers after SLOW_MS; five queued events keep its endpoint busy for seconds.
  const SLOW_MS = 1_500;
  const slowHits: number[] = [];
  const slow = createServer((req, res) => {
    req.resume();
    slowHits.push(Date.now());
    setTimeout(() => res.end('ok'), SLOW_MS).unref();
  });
  await outsideLoopBudget(() => new Promise<void>((ok) => slow.listen(0, '127.0.0.1', ok)));
  const { store, worker } = setup();
  try {
    await store.create('slowco', { url: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/`, events: ['key.created'] });
    await store.create('acme', { url: receiverUrl, events: ['key.created'] });
    for (let i = 0; i < 5; i++) await audit('slowco', 'key.created', `key:s${i}`);
    worker.start();
    await waitFor(() => slowHits.length === 1, { message: 'the slow endpoint to start', timeout: 10_000 });
    const at = Date.now();
    await audit('acme', 'key.created', 'key:k1');
    await waitFor(() => received.length === 1, { message: "acme's delivery", timeout: 20_000 });
    // Before: the next turn waited for the slow endpoint's whole run (5 x SLOW_MS). Now one poll
    // (WEBHOOK_POLL_MS) and a local POST; the bound is generous for a loaded machine.
    const waited = Date.now() - at;
    assert.ok(waited < 2 * SLOW_MS, `acme waited ${waited} ms while the slow endpoint still ran (${slowHits.length} of 5 sent)`);
    assert.ok(slowHits.length < 5, 'the slow endpoint was still running');
  } finally {
    await worker.stop();
    slow.close();
  }
});
