/**
 * Service accounts (docs/management.md "Service accounts"): a new key overlaps the old one as a
 * project key's roll does, and a revoked service account stays revoked, its keys all refused.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, beforeEach, test } from 'node:test';
import { AccountError, connectRedis, createAccounts, K, scanKeys, type Accounts, type PublicJwk, type Redis } from '@svc/accounts';
import { startRedis, testClock, type RedisFixture } from '@svc/testkit';

let redis: RedisFixture;
let client: Redis;
let accounts: Accounts;
const clock = testClock({ start: Date.UTC(2026, 0, 1) });

before(async () => {
  redis = await startRedis();
  client = connectRedis(redis.url);
  accounts = createAccounts(client, { pepper: 'p'.repeat(32), bcryptCost: 4, now: clock.now });
});
beforeEach(async () => {
  await client.flushall();
  await accounts.workspaces.create({ slug: 'acme', owner: 'user_owner' });
});
after(async () => {
  client.disconnect();
  await redis.stop();
});

const revoked = (err: unknown) =>
  err instanceof AccountError && err.code === 'conflict' && /is revoked: it gets no new key/.test(err.message);

test('a new key overlaps the old one for the grace chosen; 0 ends the old key at once', async () => {
  const { bot, key: first } = await accounts.bots.create({ workspace: 'acme', name: 'ci' });
  const second = await accounts.bots.rotateKey(bot.id, 3600);
  assert.equal(second.oldKeyUntil, clock.now() + 3_600_000);
  assert.ok(await accounts.keys.verify(first.key), 'the old key works during the overlap');
  assert.ok(await accounts.keys.verify(second.key));
  clock.advance(3_600_000);
  assert.equal(await accounts.keys.verify(first.key), null, 'the old key ends with the overlap');

  const third = await accounts.bots.rotateKey(bot.id, 0);
  assert.equal(third.oldKeyUntil, null);
  assert.equal(await accounts.keys.verify(second.key), null);
  assert.equal((await accounts.bots.get(bot.id))?.keyId, third.id);
});

test('a revoked service account stays revoked: no new key, and a key in its overlap is revoked with it', async () => {
  const { bot, key: first } = await accounts.bots.create({ workspace: 'acme', name: 'ci' });
  const second = await accounts.bots.rotateKey(bot.id, 86_400);
  await accounts.bots.revoke(bot.id);
  assert.equal((await accounts.bots.get(bot.id))?.revoked, true);
  assert.equal(await accounts.keys.verify(first.key), null, 'the key in its overlap is revoked too');
  assert.equal(await accounts.keys.verify(second.key), null);
  await assert.rejects(accounts.bots.rotateKey(bot.id), revoked);
  await assert.rejects(accounts.bots.rotateKey(bot.id, 3600), revoked);
  assert.equal((await accounts.bots.get(bot.id))?.keyId, second.id, 'no key was issued');
});

test('a rotation racing a revocation leaves no working key', async () => {
  for (let i = 0; i < 10; i++) {
    const { bot, key: first } = await accounts.bots.create({ workspace: 'acme', name: `race${i}` });
    const [rotation] = await Promise.allSettled([accounts.bots.rotateKey(bot.id, 3600), accounts.bots.revoke(bot.id)]);
    if (rotation.status === 'fulfilled') assert.equal(await accounts.keys.verify(rotation.value.key), null, 'the new key was revoked');
    else assert.ok(revoked(rotation.reason));
    assert.equal(await accounts.keys.verify(first.key), null, 'the first key was revoked');
  }
});

/** Every key record of the service account, by the id index (a key no id points to is no key). */
async function keysOf(botId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const batch of scanKeys(client, K.apiKeyById('*')))
    for (const idKey of batch) {
      const hash = await client.get(idKey);
      if (hash && (await client.hget(K.apiKey(hash), 'botId')) === botId) ids.push(idKey.slice(K.apiKeyById('').length));
    }
  return ids.sort();
}

test('rotations of one service account sent at once: one is made, every other refused, and every key left is named by the account', async () => {
  // docs/security.md "Single-use values": the new key replaces the old in one write (SWAP_KEY).
  const N = 8;
  for (let round = 0; round < 6; round++) {
    const overlap = round % 2 === 0 ? 0 : 3600;
    const { bot, key: first } = await accounts.bots.create({ workspace: 'acme', name: `rotated${round}` });
    const settled = await Promise.allSettled(Array.from({ length: N }, () => accounts.bots.rotateKey(bot.id, overlap)));
    const made = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const summary = settled.map((s) => (s.status === 'fulfilled' ? s.value.id : String(s.reason))).join(' | ');
    assert.equal(made.length, 1, `round ${round}: ${summary}`);
    for (const s of settled)
      if (s.status === 'rejected')
        assert.ok(
          s.reason instanceof AccountError && s.reason.code === 'conflict' && /rotated by another request meanwhile/.test(s.reason.message),
          `round ${round}: ${summary}`,
        );
    const after = await client.hmget(K.bot(bot.id), 'keyId', 'previousKeyId');
    assert.deepEqual(after, [made[0]!.id, first.id], `round ${round}: the account names the new key and the one it replaced`);
    assert.deepEqual(await keysOf(bot.id), [first.id, made[0]!.id].sort(), `round ${round}: no other key exists`);
    assert.ok(await accounts.keys.verify(made[0]!.key), `round ${round}: the new key works`);
    assert.equal((await accounts.keys.verify(first.key)) === null, overlap === 0, `round ${round}: the old key per the overlap`);
    // Revoking the account then ends every key it has.
    await accounts.bots.revoke(bot.id);
    assert.equal(await accounts.keys.verify(made[0]!.key), null, `round ${round}`);
    assert.equal(await accounts.keys.verify(first.key), null, `round ${round}`);
  }
});

test('stored client keys are checked again as they are read: keys altered in Redis are refused, even right after a good read', async () => {
  const { bot } = await accounts.bots.create({ workspace: 'acme', name: 'signer' });
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'ES256' } as PublicJwk;
  await accounts.serviceAccountClients.setKeys(bot.id, { jwks: { keys: [jwk] } });
  const good = await client.get(K.botClientKeys(bot.id));
  assert.deepEqual(await accounts.serviceAccountClients.getKeys(bot.id), { jwks: { keys: [jwk] } });
  // Written by other means: a private key's members, then a key that is no key.
  const withPrivate = { jwks: { keys: [{ ...jwk, d: privateKey.export({ format: 'jwk' }).d }] } };
  const notAKey = { jwks: { keys: [{ ...jwk, x: 'AAAA' }] } };
  for (const altered of [withPrivate, notAKey]) {
    await client.set(K.botClientKeys(bot.id), JSON.stringify(altered));
    assert.equal(await accounts.serviceAccountClients.getKeys(bot.id), null, JSON.stringify(altered));
  }
  await client.set(K.botClientKeys(bot.id), good!);
  const again = await accounts.serviceAccountClients.getKeys(bot.id);
  assert.deepEqual(again, { jwks: { keys: [jwk] } });
  // Each read is its own copy: changing one changes no later read.
  (again as { jwks: { keys: PublicJwk[] } }).jwks.keys.length = 0;
  assert.deepEqual(await accounts.serviceAccountClients.getKeys(bot.id), { jwks: { keys: [jwk] } });
});
