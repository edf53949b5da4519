/**
 * The webhook events read from entries only the access-request store and the expiry sweep write
 * (docs/webhooks.md "Events"): `access_request.created` and `key.expiring`, each written once
 * (a repeat, concurrent filings, concurrent sweeps) and delivered signed to a real receiver.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { connectRedis, createAccounts, type Accounts, type Redis } from '@svc/accounts';
import { createManagement } from '@svc/management';
import { outsideLoopBudget, startHttpReceiver, startRedis, type HttpReceiver, type RedisFixture } from '@svc/testkit';
import { createWebhookWorker, WebhookStore, webhookSend } from '@svc/webhooks';
import { Webhook } from 'standardwebhooks';

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
  client = connectRedis(redis.url, { name: 'webhook-events-test' });
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
});

/** An endpoint of `workspace` for `events`, and a function delivering what is due to it, verified. */
async function endpoint(workspace: string, events: Parameters<WebhookStore['create']>[1]['events']) {
  const store = new WebhookStore(client, { pepper: PEPPER });
  const worker = createWebhookWorker({ redis: client, store, send: webhookSend(LOOPBACK), audit: accounts.audit });
  const made = (await store.create(workspace, { url: receiver.url, events }))!;
  return async () => {
    await worker.turn();
    const wh = new Webhook(made.secret);
    return receiver.received.map((r) => wh.verify(r.body, r.headers) as { type: string; data: Record<string, unknown> });
  };
}

test('filing an access request is one access_request.created entry and event, without the reason', async () => {
  const owner = await accounts.users.create({ emailVerified: true, email: 'owner@example.com', password: 'a long enough passphrase' });
  const asker = await accounts.users.create({ emailVerified: true, email: 'asker@example.com', password: 'a long enough passphrase' });
  await accounts.workspaces.createProject({ slug: 'web', workspace: owner.workspace });
  const deliver = await endpoint(owner.workspace, ['access_request.created']);
  const management = createManagement(accounts, { redis: client });
  const actor = { kind: 'person' as const, userId: asker.id, label: asker.email, source: '203.0.113.7', requestId: 'req-1' };
  const reason = 'deploy the release; token sk_live_secret';
  const first = await management.requestAccess(actor, 'web', { level: 'EDITOR', reason });
  // A repeat updates the pending request: no second entry. A project key's concurrent filings: one.
  assert.equal((await management.requestAccess(actor, 'web', { level: 'ADMIN', reason })).updated, true);
  const key = await accounts.keys.createProjectKey({ project: 'web', workspace: owner.workspace, level: 'VIEWER', name: 'ci' });
  const ask = () =>
    accounts.accessRequests.create(
      { project: 'web', requester: { type: 'key', id: key.id, label: 'ci' }, requestedLevel: 'EDITOR', reason: 'r' },
      { source: '198.51.100.2', requestId: 'req-2' },
    );
  const both = await Promise.all([ask(), ask()]);
  assert.equal(both[0].id, both[1].id);

  const entries = (await accounts.audit.page(owner.workspace, { action: 'access_request.created' })).entries;
  assert.deepEqual(
    entries.map((e) => [e.actor, e.target, e.source, e.requestId, e.detail]),
    [
      [`key:${key.record.prefix}`, `access_request:${both[0].id} (ci)`, '198.51.100.2', 'req-2', { project: 'web', asked: 'EDITOR' }],
      ['asker@example.com', `access_request:${first.id} (asker@example.com)`, '203.0.113.7', 'req-1', { project: 'web', asked: 'EDITOR' }],
    ],
  );
  const events = await deliver();
  assert.deepEqual(
    events.map((e) => [e.type, e.data['action'], e.data['target']]),
    [
      ['access_request.created', 'access_request.created', `access_request:${first.id} (asker@example.com)`],
      ['access_request.created', 'access_request.created', `access_request:${both[0].id} (ci)`],
    ],
  );
  assert.ok(!receiver.received.some((r) => r.body.includes('sk_live')), 'the reason is not sent');
});

test('a key about to expire is one key.expiring entry and event, however many sweeps run at once', async () => {
  const owner = await accounts.users.create({ emailVerified: true, email: 'owner@example.com', password: 'a long enough passphrase' });
  await accounts.workspaces.createProject({ slug: 'exp', workspace: owner.workspace });
  const soon = await accounts.keys.createProjectKey({
    project: 'exp',
    workspace: owner.workspace,
    level: 'VIEWER',
    name: 'deploy bot',
    expiresInSeconds: 3 * 86_400,
  });
  const deliver = await endpoint(owner.workspace, ['key.expiring', 'key.expired']);
  const management = createManagement(accounts, { redis: client });
  const sweeps = await Promise.all([1, 2, 3].map(() => management.sweepKeyExpiries()));
  assert.equal(
    sweeps.reduce((n, s) => n + s.warned, 0),
    1,
  );
  const entries = (await accounts.audit.page(owner.workspace, { action: 'key.expiring' })).entries;
  const expiresAt = new Date(soon.record.expiresAt!).toISOString();
  assert.deepEqual(
    entries.map((e) => [e.actor, e.target, e.detail]),
    [['svc', `key:${soon.id} (${soon.record.prefix}, "deploy bot")`, { project: 'exp', expires_at: expiresAt }]],
  );
  await management.sweepKeyExpiries();
  const events = await deliver();
  assert.deepEqual(
    events.map((e) => [e.type, (e.data['detail'] as Record<string, string>)['expires_at']]),
    [['key.expiring', expiresAt]],
  );
});
