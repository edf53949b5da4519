/**
 * The storage adapter's round trips (docs/auth-service.md "Storage round trips"): a token's record
 * and its grant's set are sent together, and a consumption is one command with its announcement.
 * Counted as the socket reads Redis processes (INFO stats `total_reads_processed`): commands sent
 * one after another, each awaiting its reply, are one read each. In a token request's scope, a
 * token is written behind and the request's later steps never overtake its write.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { connectRedis, createAccounts, INVALIDATION_CHANNEL, oidcRecordKey, waitReady, type Redis } from '@svc/accounts';
import { eventually, startRedis, type RedisFixture } from '@svc/testkit';
import type { Request, Response } from 'express';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { createRedisAdapter } from '../src/provider/redis-adapter.ts';
import { settleWrites, tokenRequestScope } from '../src/store/request-storage.ts';

let redis: RedisFixture;
let conn: Redis;
let RefreshToken: { new (model: string): InstanceType<ReturnType<typeof createRedisAdapter>> };

before(async () => {
  redis = await startRedis();
  // As the auth-service connects (server.ts): fail-fast, each turn's writes batched.
  conn = connectRedis(redis.url, { failFast: true, batchWrites: true, name: 'round-trips' });
  // A fail-fast client sends nothing before it is connected (no offline queue): the service waits too.
  await waitReady(conn);
  const accounts = createAccounts(conn, { pepper: 'p'.repeat(32), bcryptCost: 4 });
  RefreshToken = createRedisAdapter({ redis: conn, grants: accounts.oauthGrants });
});
after(async () => {
  conn.disconnect();
  await redis.stop();
});
beforeEach(() => redis.flush());

const reads = async () => Number(/^total_reads_processed:(\d+)/m.exec(await redis.client.info('stats'))?.[1]);

/** Socket reads Redis processed while `work` ran, less the INFO call that reads the count. */
async function readsOf(work: () => Promise<void>): Promise<number> {
  const before = await reads();
  await work();
  return (await reads()) - before - 1;
}

test("a token's record and its grant's set are one round trip; the set's lifetime is raised, never lowered", async () => {
  const adapter = new RefreshToken('RefreshToken');
  // The scripts' first use loads them (EVALSHA, then EVAL): not what is counted.
  await adapter.upsert('warm-up', { grantId: 'g0', kind: 'RefreshToken' }, 60);
  const n = await readsOf(() => adapter.upsert('token-1', { grantId: 'g1', kind: 'RefreshToken' }, 3600));
  assert.ok(n <= 1, `the upsert took ${n} round trips`);
  const set = 'svc:oidc:grant-keys:g1';
  assert.deepEqual(await redis.client.smembers(set), [oidcRecordKey('RefreshToken', 'token-1')]);
  assert.ok((await redis.client.ttl(set)) > 3500);
  await adapter.upsert('token-2', { grantId: 'g1', kind: 'RefreshToken' }, 60);
  assert.equal((await redis.client.scard(set)) as number, 2);
  assert.ok((await redis.client.ttl(set)) > 3500, 'a shorter-lived member does not shorten the set');
  assert.ok((await redis.client.ttl(oidcRecordKey('RefreshToken', 'token-2'))) <= 60);
});

test('a consumption and its announcement are one command, heard after the record reads consumed', async () => {
  const adapter = new RefreshToken('RefreshToken');
  await adapter.upsert('token-3', { grantId: 'g3', kind: 'RefreshToken' }, 3600);
  // Loads the script; a record that does not exist is refused (docs/security.md "Single-use values").
  await assert.rejects(adapter.consume('warm-up'), errors.InvalidGrant);
  const heard: string[] = [];
  const sub = redis.client.duplicate();
  await sub.subscribe(INVALIDATION_CHANNEL);
  sub.on('message', (_c: string, message: string) => {
    void redis.client
      .hget(oidcRecordKey('RefreshToken', 'token-3'), 'consumed')
      .then((c) => heard.push(`${message} ${c ? 'consumed' : 'live'}`));
  });
  try {
    const n = await readsOf(() => adapter.consume('token-3'));
    assert.ok(n <= 1, `the consumption took ${n} round trips`);
    await eventually(() => assert.equal(heard.length, 1));
    assert.match(heard[0]!, /^oauth:RefreshToken:\S+ consumed$/);
    assert.equal(await redis.client.exists(oidcRecordKey('RefreshToken', 'warm-up')), 0, 'an absent record is not created');
  } finally {
    sub.disconnect();
  }
});

test('in a token request, a token written behind is stored before the response, and a later destroy never overtakes it', async () => {
  const adapter = new RefreshToken('AccessToken');
  const key = oidcRecordKey('AccessToken', 'behind-1');
  /** Runs `steps` as a token request does: in its scope, its writes settled at the end. */
  const inRequest = (steps: () => Promise<void>) =>
    new Promise<void>((done, fail) =>
      tokenRequestScope({} as Request, {} as Response, () => {
        void settleWrites()({} as KoaContextWithOIDC, steps).then(done, fail);
      }),
    );
  await inRequest(() => adapter.upsert('behind-1', { grantId: 'g9', kind: 'AccessToken' }, 60));
  assert.equal(await redis.client.exists(key), 1, 'the write landed before the request ended');
  assert.deepEqual(await redis.client.smembers('svc:oidc:grant-keys:g9'), [key]);
  // The scripts unloaded (a restarted or failed-over Redis): the write is resent as EVAL after
  // NOSCRIPT, a round trip later than a command sent after it.
  await redis.client.script('FLUSH');
  await inRequest(async () => {
    await adapter.upsert('behind-2', { grantId: 'g9', kind: 'AccessToken' }, 60);
    await adapter.destroy('behind-2');
  });
  assert.equal(await redis.client.exists(oidcRecordKey('AccessToken', 'behind-2')), 0, 'the destroy came after the write it followed');
});
