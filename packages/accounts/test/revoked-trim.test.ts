/**
 * Revoked keys and service accounts are bounded (docs/management.md "Lists and pages"): a project
 * keeps its last REVOKED_KEYS_KEPT revoked keys, a workspace its last REVOKED_SERVICE_ACCOUNTS_KEPT
 * revoked service accounts; older ones leave Redis whole, and nothing live is touched. migrate()
 * trims what an earlier release kept.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  connectRedis,
  createAccounts,
  K,
  PERSONAL_KEYS_KEPT,
  REVOKED_KEYS_KEPT,
  REVOKED_SERVICE_ACCOUNTS_KEPT,
  type Accounts,
  type Redis,
} from '@svc/accounts';
import { startRedis, type RedisFixture } from '@svc/testkit';

let redis: RedisFixture;
let client: Redis;
let accounts: Accounts;
let clock = Date.parse('2026-01-01T00:00:00Z');

before(async () => {
  redis = await startRedis();
  client = connectRedis(redis.url);
  accounts = createAccounts(client, { pepper: 'p'.repeat(32), bcryptCost: 4, now: () => clock });
  await accounts.workspaces.create({ slug: 'acme', owner: 'user_owner' });
  for (const p of ['web', 'old']) await accounts.workspaces.createProject({ slug: p, workspace: 'acme' });
});
after(async () => {
  client.disconnect();
  await redis.stop();
});

const projectKey = (project: string, name: string, expiresInSeconds?: number) =>
  accounts.keys.createProjectKey({ project, workspace: 'acme', name, ...(expiresInSeconds ? { expiresInSeconds } : {}) });

test('past REVOKED_KEYS_KEPT revoked keys, the oldest revoked leave Redis; live keys stay and work', async () => {
  const live = await projectKey('web', 'live');
  const expiring = await projectKey('web', 'expiring', 3600);
  const revoked: { id: string; key: string }[] = [];
  for (let i = 0; i < REVOKED_KEYS_KEPT + 5; i++) {
    clock += 1000;
    const k = await projectKey('web', `k${i}`, i % 2 === 0 ? 86_400 : undefined);
    await accounts.keys.revoke(k.id);
    revoked.push({ id: k.id, key: k.key });
  }
  const listed = await accounts.keys.listForProject('web');
  const listedRevoked = listed.filter((k) => k.revoked).map((k) => k.id);
  assert.equal(listedRevoked.length, REVOKED_KEYS_KEPT, 'the revoked keys kept');
  assert.deepEqual(
    listedRevoked,
    revoked.slice(-REVOKED_KEYS_KEPT).map((k) => k.id),
    'the newest revoked are kept',
  );
  assert.deepEqual(
    listed
      .filter((k) => !k.revoked)
      .map((k) => k.id)
      .sort(),
    [live.id, expiring.id].sort(),
    'live keys are untouched',
  );
  assert.equal(await client.zcard(K.projectRevokedKeys('web')), REVOKED_KEYS_KEPT);
  assert.equal(await client.scard(K.projectKeys('web')), REVOKED_KEYS_KEPT + 2);
  for (const gone of revoked.slice(0, 5)) {
    assert.equal(await accounts.keys.getById(gone.id), null, 'a trimmed key has no record');
    assert.equal(await accounts.keys.findByValue(gone.key), null, 'nor is it found by its value');
    assert.equal(await client.exists(K.apiKeyById(gone.id)), 0);
    assert.equal(await client.zscore(K.keyExpiries(), gone.id), null, 'nor is it due for an expiry notice');
  }
  assert.ok(await accounts.keys.verify(live.key), 'a live key still verifies');
  assert.ok(await accounts.keys.verify(expiring.key));
});

test('past REVOKED_SERVICE_ACCOUNTS_KEPT revoked service accounts, the oldest leave Redis with their keys and grants', async () => {
  const live = await accounts.bots.create({ workspace: 'acme', name: 'live' });
  await accounts.bots.grant(live.bot.id, 'web', 'VIEWER');
  const revoked: { id: string; keyId: string }[] = [];
  for (let i = 0; i < REVOKED_SERVICE_ACCOUNTS_KEPT + 3; i++) {
    clock += 1000;
    const b = await accounts.bots.create({ workspace: 'acme', name: `b${i}` });
    await accounts.bots.grant(b.bot.id, 'web', 'VIEWER');
    await accounts.bots.revoke(b.bot.id);
    revoked.push({ id: b.bot.id, keyId: b.key.id });
  }
  const listed = await accounts.bots.listForWorkspace('acme');
  assert.deepEqual(
    listed.filter((b) => b.revoked).map((b) => b.id),
    revoked.slice(-REVOKED_SERVICE_ACCOUNTS_KEPT).map((b) => b.id),
    'the newest revoked are kept',
  );
  assert.deepEqual(
    listed.filter((b) => !b.revoked).map((b) => b.id),
    [live.bot.id],
  );
  for (const gone of revoked.slice(0, 3)) {
    assert.equal(await accounts.bots.get(gone.id), null, 'a trimmed service account has no record');
    assert.equal(await accounts.keys.getById(gone.keyId), null, 'nor its key');
    assert.equal(await client.exists(K.botGrants(gone.id)), 0, 'nor its grants');
  }
  assert.equal(await accounts.bots.grantOf(live.bot.id, 'web'), 'VIEWER');
  assert.ok(await accounts.keys.verify(live.key.key), 'the live one still works');
});

test('migrate() trims the revoked keys and service accounts an earlier release kept whole', async () => {
  const revokedKeys: string[] = [];
  for (let i = 0; i < REVOKED_KEYS_KEPT + 7; i++) {
    clock += 1000;
    const k = await projectKey('old', `o${i}`);
    await accounts.keys.revoke(k.id);
    revokedKeys.push(k.id);
    // 0.1.0 kept no index of revoked keys.
    await client.del(K.projectRevokedKeys('old'));
  }
  await client.del(K.workspaceRevokedBots('acme'));
  const report = await accounts.migrate();
  assert.equal(report.revokedKeysTrimmed, 7);
  // The workspace's revoked service accounts are indexed again, by creation: already at the bound.
  assert.equal(report.revokedServiceAccountsTrimmed, 0);
  assert.equal(await client.zcard(K.workspaceRevokedBots('acme')), REVOKED_SERVICE_ACCOUNTS_KEPT);
  const kept = (await accounts.keys.listForProject('old')).map((k) => k.id);
  assert.deepEqual(kept, revokedKeys.slice(-REVOKED_KEYS_KEPT), 'the newest created are kept');
  const again = await accounts.migrate();
  assert.equal(again.revokedKeysTrimmed + again.revokedServiceAccountsTrimmed, 0, 'a second run trims nothing');
});

test('past PERSONAL_KEYS_KEPT personal keys, making one ends and forgets the oldest; the others keep working', async () => {
  const made: { id: string; key: string }[] = [];
  for (let i = 0; i < PERSONAL_KEYS_KEPT + 4; i++) {
    clock += 1000;
    const k = await accounts.keys.createUserKey({ userId: 'user_busy', name: `login ${i}` });
    made.push({ id: k.id, key: k.key });
  }
  // One revoked by its holder stays counted until it is among the oldest.
  await accounts.keys.revoke(made.at(-2)!.id);
  const held = await accounts.keys.listForUser('user_busy');
  assert.deepEqual(
    held.map((k) => k.id),
    made
      .slice(-PERSONAL_KEYS_KEPT)
      .map((k) => k.id)
      .reverse(),
    'the newest are kept, newest first',
  );
  assert.equal(await client.scard(K.userKeys('user_busy')), PERSONAL_KEYS_KEPT);
  for (const gone of made.slice(0, 4)) {
    assert.equal(await accounts.keys.verify(gone.key), null, 'an ended key is refused');
    assert.equal(await accounts.keys.getById(gone.id), null, 'and forgotten');
  }
  assert.ok(await accounts.keys.verify(made.at(-1)!.key), 'the newest works');
  assert.ok(await accounts.keys.verify(made.at(-PERSONAL_KEYS_KEPT)!.key), 'the oldest kept works');
});
