/**
 * `svc-admin webhooks run` (docs/webhooks.md "Delivery"): the delivery worker in a process of its
 * own delivers a workspace's event to a local receiver, and stops cleanly on SIGTERM, handing the
 * lease back.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { createAccounts } from '@svc/accounts';
import { DEV_KEY_PEPPER } from '@svc/config';
import { outsideLoopBudget, startRedis, waitFor, type RedisFixture } from '@svc/testkit';
import { WebhookStore } from '@svc/webhooks';

const root = resolve(import.meta.dirname, '../../..');
let redis: RedisFixture;
const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString('utf8')));
  req.on('end', () => {
    received.push({ headers: req.headers, body });
    res.end();
  });
});

before(async () => {
  redis = await startRedis();
  await outsideLoopBudget(() => new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok)));
});
after(async () => {
  receiver.close();
  await redis.stop();
});

test('svc-admin webhooks run delivers signed events and stops on SIGTERM, releasing the lease', async () => {
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const store = new WebhookStore(redis.client, { pepper: DEV_KEY_PEPPER });
  await store.create('acme', { url, events: ['member.added'] });
  const child = spawn(resolve(root, 'scripts/node'), ['packages/svc-admin/src/main.ts', 'webhooks', 'run'], {
    cwd: root,
    env: { ...process.env, REDIS_URL: redis.url, WEBHOOK_ALLOWED_PRIVATE: '127.0.0.1/32' },
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
  try {
    await waitFor(() => stderr.includes('delivering'), { timeout: 20_000, message: () => `the worker to start: ${stderr}` });
    const accounts = createAccounts(redis.client, { pepper: DEV_KEY_PEPPER, bcryptCost: 4 });
    await accounts.audit.record({
      workspace: 'acme',
      actor: 'o@example.com',
      action: 'member.added',
      target: 'user:b@example.com',
      source: 's',
      requestId: 'r',
    });
    await waitFor(() => received.length === 1, { timeout: 10_000, message: () => `a delivery: ${stderr}` });
    assert.equal((JSON.parse(received[0]!.body) as { type: string }).type, 'member.added');
    assert.match(String(received[0]!.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/);
    assert.ok(await redis.client.get('svc:webhooks:lease'), 'the process holds the lease');
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0, stderr);
  assert.match(stderr, /stopped/);
  assert.equal(await redis.client.get('svc:webhooks:lease'), null, 'the lease was handed back');
});
