/**
 * A stuck Redis Cluster node (SIGSTOP: its connections stay open, nothing answers) on a request
 * client (docs/operations.md "When Redis stops answering"): the first command to time out drops
 * that node's connection, so the commands after it fail at once instead of each waiting out its
 * own timeout; the other nodes keep answering, and the node is used again once it answers.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connectRedis, isStoreError, REQUEST_STALL_ANSWER_MS, type Redis } from '@svc/accounts';
import { startRedisCluster, waitFor, type RedisClusterFixture } from '@svc/testkit';

let cluster: RedisClusterFixture;
let client: Redis;

before(async () => {
  cluster = await startRedisCluster();
  client = connectRedis(cluster.url, { cluster: true, failFast: true, name: 'cluster-stall-test' });
  await waitFor(async () => (await client.set('{stuck}probe', '1')) === 'OK', { message: 'the cluster client to be ready' });
});
after(async () => {
  client.disconnect();
  await cluster.stop();
});

test('a stuck node costs one command timeout, not one per command; the other nodes answer meanwhile', async () => {
  const stuck = await cluster.masterOf('{stuck}');
  const other = cluster.ports.find((p) => p !== stuck)!;
  let otherKey = '';
  for (let i = 0; !otherKey; i++) if ((await cluster.masterOf(`{other${i}}`)) === other) otherKey = `{other${i}}x`;
  await client.set(otherKey, '1');

  cluster.pause(stuck);
  try {
    // A request's steps, one after the other, all on the stuck node's slot.
    const start = performance.now();
    for (let i = 0; i < 5; i++) {
      const err = await client.get(`{stuck}step${i}`).then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(isStoreError(err), `step ${i} failed as a store error: ${String(err)}`);
    }
    const took = performance.now() - start;
    assert.ok(took < REQUEST_STALL_ANSWER_MS, `five commands on the stuck node took ${Math.round(took)} ms`);
    assert.equal(await client.get(otherKey), '1', 'another node answers while one is stuck');
  } finally {
    cluster.resume(stuck);
  }
  await waitFor(async () => (await client.get('{stuck}probe')) === '1', {
    timeout: 5_000,
    message: 'the node to be used again once it answers',
  });
});
