/**
 * The client policy store (docs/management.md "Client governance") on a real Redis: a client's
 * first wait is filed by exactly one of many concurrent attempts (one atomic write), the number of
 * clients kept is bounded, and a policy with a bad rule is refused naming it.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { connectRedis, createAccounts, type Accounts, type Redis } from '../src/index.ts';
import { CLIENT_POLICY_LIMITS } from '../src/client-policy-rules.ts';
import { startRedis, type RedisFixture } from '@svc/testkit';

let redis: RedisFixture;
let client: Redis;
let accounts: Accounts;

before(async () => {
  redis = await startRedis();
  client = connectRedis(redis.url);
  accounts = createAccounts(client, { pepper: 'p'.repeat(32), bcryptCost: 4 });
});
beforeEach(async () => {
  await client.flushall();
});
after(async () => {
  client.disconnect();
  await redis.stop();
});

test('of 25 concurrent first attempts, exactly one files the wait', async () => {
  const client = { clientId: 'https://claude.ai/oauth/mcp-oauth-client-metadata', name: 'Claude' };
  const outcomes = await Promise.all(
    Array.from({ length: 25 }, (_, i) => accounts.clientPolicies.fileWait('acme', client, `p${i}@example.com`)),
  );
  assert.equal(outcomes.filter((o) => o === 'filed').length, 1);
  assert.equal(outcomes.filter((o) => o === 'exists').length, 24);
  assert.equal((await accounts.clientPolicies.list('acme')).length, 1);
});

test('at most maxApprovals clients are kept: past it the oldest decision makes room, and with none decided nothing is filed', async () => {
  const file = (i: number) => accounts.clientPolicies.fileWait('acme', { clientId: `client-${i}`, name: null }, 'a@example.com');
  await Promise.all(Array.from({ length: CLIENT_POLICY_LIMITS.maxApprovals }, (_, i) => file(i)));
  assert.deepEqual(await Promise.all([file(-1), file(-2), file(-3)]), ['full', 'full', 'full']);
  await accounts.clientPolicies.decide('acme', 'client-7', 'approved', 'owner@example.com');
  assert.equal(await file(-4), 'filed');
  const kept = await accounts.clientPolicies.list('acme');
  assert.equal(kept.length, CLIENT_POLICY_LIMITS.maxApprovals);
  assert.ok(!kept.some((a) => a.clientId === 'client-7') && kept.some((a) => a.clientId === 'client--4'));
  assert.equal(await file(-5), 'full');
});

test('a decision needs a client that waited; a policy with a bad rule is refused naming the list', async () => {
  assert.equal(await accounts.clientPolicies.decide('acme', 'never-seen', 'approved', 'owner@example.com'), null);
  await assert.rejects(
    accounts.clientPolicies.set('acme', { mode: 'allowlist', allow: [], deny: [{ kind: 'host', value: 'https://x.example' }] }),
    /deny: host https:\/\/x\.example is not a host name/,
  );
  assert.equal((await accounts.clientPolicies.get('acme')).mode, 'open', 'nothing was saved');
});
