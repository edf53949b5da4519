/**
 * "Send a test event" (docs/webhooks.md "Send a test event"), against a real Redis and a real
 * receiver: the owner's test goes out on the worker's next turn even while the endpoint backs off
 * after a failure, or is marked failing; it moves no cursor and changes no backoff, so the event
 * being retried still waits for its time.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { connectRedis, createAccounts, type Accounts, type Redis } from '@svc/accounts';
import { outsideLoopBudget, startHttpReceiver, startRedis, testClock, type HttpReceiver, type RedisFixture } from '@svc/testkit';
import { createWebhookWorker, WEBHOOK_RETRY_DELAYS_MS, WebhookStore, webhookSend, type WebhookWorker } from '@svc/webhooks';

const PEPPER = 'p'.repeat(40);
const LOOPBACK = [{ address: '127.0.0.1', prefix: 32, family: 'ipv4' as const }];

let redis: RedisFixture;
let client: Redis;
let accounts: Accounts;
let receiver: HttpReceiver;

before(async () => {
  await outsideLoopBudget(async () => {
    redis = await startRedis();
    receiver = await startHttpReceiver();
  });
  client = connectRedis(redis.url, { name: 'webhook-test-event-test' });
  accounts = createAccounts(client, { pepper: PEPPER, bcryptCost: 4 });
});
after(async () => {
  await receiver.close();
  client.disconnect();
  await redis.stop();
});
beforeEach(async () => {
  await redis.flush();
  receiver.received.length = 0;
  receiver.answers.length = 0;
});

const types = () => receiver.received.map((r) => (JSON.parse(r.body) as { type: string }).type);

/** Exactly one turn of the worker, and the runs it started to their end. */
async function oneTurn(worker: WebhookWorker): Promise<void> {
  await Promise.all((await worker.dispatch()).map((r) => r.done));
}

test('a test event goes out on the next turn while the endpoint backs off, and leaves the backoff as it was', async () => {
  const clock = testClock({ frozen: false });
  const store = new WebhookStore(client, { pepper: PEPPER }, clock.now);
  const worker = createWebhookWorker({ redis: client, store, send: webhookSend(LOOPBACK), audit: accounts.audit, now: clock.now });
  const made = (await store.create('acme', { url: receiver.url, events: ['key.created'] }))!;
  await accounts.audit.record({
    workspace: 'acme',
    actor: 'o@example.com',
    action: 'key.created',
    target: 'key:k1',
    source: '203.0.113.9',
    requestId: 'r',
  });
  receiver.answers.push(500);
  await oneTurn(worker);
  const backingOff = await store.state('acme', made.endpoint.id);
  assert.equal(backingOff.attempts, 1);
  assert.ok(backingOff.nextAt > clock.now(), 'backing off');

  assert.equal(await store.queueTest('acme', made.endpoint.id), true);
  await oneTurn(worker);
  assert.deepEqual(types(), ['key.created', 'webhook.test'], 'the test at once; the failed event not before its time');
  const after = await store.state('acme', made.endpoint.id);
  assert.deepEqual(
    [after.cursor, after.attempts, after.nextAt, after.testPending],
    [backingOff.cursor, 1, backingOff.nextAt, false],
    'the test moved no cursor and no backoff',
  );

  // Its time come, the failed event is retried as before.
  clock.advance(WEBHOOK_RETRY_DELAYS_MS[0] + 1);
  await oneTurn(worker);
  assert.deepEqual(types(), ['key.created', 'webhook.test', 'key.created']);
});

test('a test event goes out to an endpoint marked failing, which stays failing until its owner enables it', async () => {
  const clock = testClock({ frozen: false });
  const store = new WebhookStore(client, { pepper: PEPPER }, clock.now);
  const worker = createWebhookWorker({ redis: client, store, send: webhookSend(LOOPBACK), audit: accounts.audit, now: clock.now });
  const made = (await store.create('acme', { url: receiver.url, events: ['key.created'] }))!;
  // As the worker leaves it after WEBHOOK_RETRY_WINDOW_MS of failures (services/auth-service/test/webhooks.test.ts).
  await store.setState('acme', made.endpoint.id, { failing: 1, attempts: 7 });
  await accounts.audit.record({
    workspace: 'acme',
    actor: 'o@example.com',
    action: 'key.created',
    target: 'key:k1',
    source: '203.0.113.9',
    requestId: 'r',
  });
  await store.queueTest('acme', made.endpoint.id);
  await oneTurn(worker);
  assert.deepEqual(types(), ['webhook.test']);
  assert.equal((await store.state('acme', made.endpoint.id)).failing, true);
});
