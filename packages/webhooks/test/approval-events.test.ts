/**
 * The webhook events of approval-gated calls (docs/webhooks.md "Events", docs/approvals.md): a held
 * call is `approval.requested` as soon as the store holds it, naming the tool and the call's hash;
 * an approval or a denial is `approval.decided`; the caller's run is no event.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connectRedis, createAccounts, type Accounts, type Redis } from '@svc/accounts';
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
  client = connectRedis(redis.url, { name: 'webhook-approval-events-test' });
  accounts = createAccounts(client, { pepper: PEPPER, bcryptCost: 4 });
});
after(async () => {
  await receiver.close();
  client.disconnect();
  await redis.stop();
});

test('a held call is approval.requested; its decision approval.decided; its run no event', async () => {
  const store = new WebhookStore(client, { pepper: PEPPER });
  const worker = createWebhookWorker({ redis: client, store, send: webhookSend(LOOPBACK), audit: accounts.audit });
  await store.create('acme', { url: receiver.url, events: ['approval.requested', 'approval.decided'] });
  const caller = { type: 'key' as const, id: 'key_agent', label: 'agent', clientId: 'svc-key:key_agent' };
  const held = await accounts.approvals.create(
    { project: 'web', workspace: 'acme', tool: 'notes__write_note', arguments: { title: 't' }, caller },
    { source: '192.0.2.1', requestId: 'r1' },
  );
  // The management layer records the decision (approval-operations.ts); the caller's run is noted by the gateway.
  await accounts.audit.record({
    workspace: 'acme',
    actor: 'admin@example.com',
    action: 'approval.approved',
    target: `approval:${held.id} (notes__write_note)`,
    source: '192.0.2.1',
    requestId: 'r2',
    detail: { project: 'web', tool: 'notes__write_note', call_hash: held.callHash },
  });
  await accounts.approvals.noteStep(held, 'approval.ran', { source: '192.0.2.1', requestId: 'r3' }, { outcome: 'ok' });
  await Promise.all((await worker.dispatch()).map((r) => r.done));
  const events = receiver.received.map(
    (r) => JSON.parse(r.body) as { type: string; data: { action: string; detail: Record<string, string> } },
  );
  assert.deepEqual(
    events.map((e) => [e.type, e.data.action]),
    [
      ['approval.requested', 'approval.requested'],
      ['approval.decided', 'approval.approved'],
    ],
  );
  assert.deepEqual(events[0]!.data.detail, { project: 'web', tool: 'notes__write_note', call_hash: held.callHash });
});
