/**
 * The quota-nearly-spent event (docs/webhooks.md "quota.warning"): a workspace's count landing on
 * 80 % and on 100 % of its monthly queries appends one `quota.warning` audit entry each, once a
 * month, whatever the number of requests after it; and the workspace's webhook endpoint receives
 * each, signed (checked with the independent `standardwebhooks` library).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createWebhookWorker, WebhookStore, webhookSend } from '@svc/webhooks';
import { Webhook } from 'standardwebhooks';
import { K } from '@svc/accounts';
import { startHttpReceiver, testClock, waitFor } from '@svc/testkit';
import { QUOTA_WARNING_PERCENTS, quotaThresholdCrossed } from '../src/ratelimit/quota-warning.ts';
import { call, post, seed, startFixture, type GatewayFixture } from './support.ts';

const clock = testClock({ start: Date.UTC(2026, 0, 15, 12, 0, 10) });
let f: GatewayFixture;
before(async () => {
  f = await startFixture({}, { now: clock.now });
});
after(() => f.close());

const MONTH = '202601';

test('the thresholds are 80 % and 100 %, each met by exactly one count', () => {
  assert.deepEqual(QUOTA_WARNING_PERCENTS, [80, 100]);
  assert.equal(quotaThresholdCrossed(800, 1000), 80);
  assert.equal(quotaThresholdCrossed(1000, 1000), 100);
  for (const used of [799, 801, 999, 1001]) assert.equal(quotaThresholdCrossed(used, 1000), null);
  assert.equal(quotaThresholdCrossed(null, 1000), null);
  assert.equal(quotaThresholdCrossed(5, null), null, 'no monthly figure, no warning');
});

test('crossing 80 % then 100 % of the monthly queries appends one quota.warning each, once a month, each delivered signed', async (t) => {
  const s = await seed(f.accounts, { plan: 'FREE', level: 'VIEWER' });
  const counting = [...f.gw.gateway.registry.all()].find(
    (t) => t.policy.countsAsQuery && t.policy.level === 'VIEWER' && t.policy.plan === 'FREE',
  );
  assert.ok(counting, 'a tool that counts a query');
  const warnings = async () => (await f.accounts.audit.page(s.workspace, { action: 'quota.warning' })).entries;
  // The workspace's owner listens for quota warnings on a receiver of their own.
  const receiver = await startHttpReceiver();
  t.after(() => receiver.close());
  const store = new WebhookStore(f.redis.client, { pepper: 'p'.repeat(40) });
  const endpoint = (await store.create(s.workspace, { url: receiver.url, events: ['quota.warning'] }))!;
  const loopback = [{ address: '127.0.0.1', prefix: 32, family: 'ipv4' as const }];
  const worker = createWebhookWorker({ redis: f.redis.client, store, send: webhookSend(loopback), audit: f.accounts.audit });
  await f.redis.client.set(K.rateMonth(s.workspace, MONTH), '798');
  const ask = () => post(f.url, `/mcp/${s.project}`, call(counting.def.name, { query: 'x' }), { 'X-API-Key': s.key });
  assert.equal((await ask()).status, 200); // 799
  assert.deepEqual(await warnings(), []);
  await ask(); // 800: 80 %
  const first = await waitFor(async () => ((await warnings()).length === 1 ? await warnings() : null), { message: 'the 80 % entry' });
  assert.equal(first[0]!.actor, 'svc');
  assert.deepEqual(first[0]!.detail, { percent: '80', used: '800', limit: '1000', month: '2026-01' });
  await ask(); // 801
  // The same count reached again this month (a counter reset by hand) does not append twice.
  await f.redis.client.set(K.rateMonth(s.workspace, MONTH), '799');
  await ask();
  await f.redis.client.set(K.rateMonth(s.workspace, MONTH), '999');
  await ask(); // 1000: 100 %
  const both = await waitFor(async () => ((await warnings()).length === 2 ? await warnings() : null), { message: 'the 100 % entry' });
  assert.deepEqual(
    both.map((e) => e.detail?.['percent']),
    ['100', '80'],
  );
  await worker.turn();
  const events = receiver.received.map(
    (r) => new Webhook(endpoint.secret).verify(r.body, r.headers) as { type: string; data: { detail: Record<string, string> } },
  );
  assert.deepEqual(
    events.map((e) => [e.type, e.data.detail['percent'], e.data.detail['used']]),
    [
      ['quota.warning', '80', '800'],
      ['quota.warning', '100', '1000'],
    ],
  );
});
