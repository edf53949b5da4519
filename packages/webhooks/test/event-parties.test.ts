/**
 * A webhook event says who acted through what as the audit log does (docs/webhooks.md "Payload",
 * docs/audit.md "Who and through what"): `data` carries the entry's principal, agent and delegation
 * chain beside its actor; an entry written before they were kept sends them read from its actor.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connectRedis, createAccounts, K, type Accounts, type Redis } from '@svc/accounts';
import { outsideLoopBudget, startHttpReceiver, startRedis, type HttpReceiver, type RedisFixture } from '@svc/testkit';
import { createWebhookWorker, WebhookStore, webhookSend } from '@svc/webhooks';

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
  client = connectRedis(redis.url, { name: 'webhook-event-parties-test' });
  accounts = createAccounts(client, { pepper: PEPPER, bcryptCost: 4 });
});
after(async () => {
  await receiver.close();
  client.disconnect();
  await redis.stop();
});

test("an event's data names the principal, the agent and the chain of its audit entry", async () => {
  const store = new WebhookStore(client, { pepper: PEPPER });
  const worker = createWebhookWorker({ redis: client, store, send: webhookSend(LOOPBACK), audit: accounts.audit });
  await store.create('acme', { url: receiver.url, events: ['key.created', 'key.revoked'] });
  const agent = { type: 'oauth_client', id: 'dcr-1', name: 'Acme Agent', verified: false, key: null } as const;
  await accounts.audit.record({
    workspace: 'acme',
    actor: 'o@example.com',
    principal: { type: 'user', id: 'user_1', label: 'o@example.com' },
    agent,
    action: 'key.created',
    target: 'key:k1',
    source: '203.0.113.9',
    requestId: 'r1',
  });
  // An entry of the release before the parties were kept.
  const old = [
    'at',
    String(Date.now()),
    'actor',
    'key:svc-Ab3x',
    'action',
    'key.revoked',
    'target',
    'key:k1',
    'source',
    '',
    'request',
    '',
    'detail',
    '{}',
  ];
  await client.xadd(K.auditLog('acme'), '*', ...old);
  await Promise.all((await worker.dispatch()).map((r) => r.done));
  const data = receiver.received.map((r) => (JSON.parse(r.body) as { data: Record<string, unknown> }).data);
  assert.deepEqual(
    data.map((d) => [d['action'], d['actor'], d['principal'], d['agent'], d['chain']]),
    [
      ['key.created', 'o@example.com', { type: 'user', id: 'user_1', label: 'o@example.com' }, agent, []],
      [
        'key.revoked',
        'key:svc-Ab3x',
        { type: 'key', id: '', label: 'key:svc-Ab3x' },
        { type: 'api_key', id: 'svc-Ab3x', name: '', verified: false, key: 'svc-Ab3x' },
        [],
      ],
    ],
  );
  assert.equal(
    data.every((d) => !('source' in d)),
    true,
    'the client address stays out, as before',
  );
});
