/**
 * Upgrading from a release that did not keep an index (docs/operations.md "Upgrading"): data
 * made by the stores, with the indexes added since deleted as 0.1.0 would have left them, is
 * brought back by migrate() to exactly what the stores keep, and a second run changes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connectRedis, createAccounts, DECIDED_REQUESTS_KEPT, K, scanKeys, type Accounts, type Redis } from '@svc/accounts';
import { startRedis, type RedisFixture } from '@svc/testkit';

let redis: RedisFixture;
let client: Redis;
let accounts: Accounts;

before(async () => {
  redis = await startRedis();
  client = connectRedis(redis.url);
  accounts = createAccounts(client, { pepper: 'p'.repeat(32), bcryptCost: 4 });
});
after(async () => {
  client.disconnect();
  await redis.stop();
});

/** Every key of the index families added since 0.1.0, with its contents. */
async function indexes(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for await (const batch of scanKeys(client, 'svc:*'))
    for (const key of batch) {
      if (key.endsWith(':live-keys')) out[key] = await client.zrange(key, 0, -1, 'WITHSCORES');
      else if (key.endsWith(':latest-requests')) out[key] = await client.hgetall(key);
      else if (/:(live-bots|pending-requests)$/.test(key)) out[key] = (await client.smembers(key)).sort();
      else if (/^svc:audit:\{[^}]+\}:action:/.test(key)) out[key] = (await client.xrange(key, '-', '+')).map(([id]) => id);
    }
  return out;
}

test('migrate() rebuilds the live-key, live-service-account, pending-request and audit action indexes', async () => {
  for (const ws of ['acme', 'globex']) {
    await accounts.workspaces.create({ slug: ws, owner: `user_${ws}` });
    for (const p of ['web', 'api']) {
      const slug = `${ws}-${p}`;
      await accounts.workspaces.createProject({ slug, workspace: ws });
      const kept = await accounts.keys.createProjectKey({ project: slug, workspace: ws, name: 'kept', expiresInSeconds: 3600 });
      await accounts.keys.createProjectKey({ project: slug, workspace: ws, name: 'forever' });
      const gone = await accounts.keys.createProjectKey({ project: slug, workspace: ws, name: 'gone' });
      await accounts.keys.revoke(gone.id);
      const asked = await accounts.accessRequests.create(
        {
          project: slug,
          requester: { type: 'key', id: kept.id, label: 'kept' },
          requestedLevel: 'EDITOR',
          reason: 'deploys',
        },
        { source: '192.0.2.1', requestId: 'test' },
      );
      const other = await accounts.accessRequests.create(
        {
          project: slug,
          requester: { type: 'key', id: gone.id, label: 'gone' },
          requestedLevel: 'VIEWER',
          reason: 'reads',
        },
        { source: '192.0.2.1', requestId: 'test' },
      );
      await accounts.accessRequests.decide(other.id, false);
      assert.ok(asked.id);
    }
    await accounts.bots.create({ workspace: ws, name: 'live' });
    const { bot } = await accounts.bots.create({ workspace: ws, name: 'revoked' });
    await accounts.bots.revoke(bot.id);
    for (let i = 0; i < 1_200; i++)
      await accounts.audit.record({
        workspace: ws,
        actor: 'action', // a value that names a field must not confuse the reader
        action: i % 3 ? 'key.created' : 'member.added',
        target: `project:${ws}-web`,
        source: 'test',
        requestId: String(i),
      });
  }
  const kept = await indexes();
  assert.ok(Object.keys(kept).length >= 10, `indexes seen: ${Object.keys(kept).join(', ')}`);
  // As a 0.1.0 Redis holds the same data: none of these indexes.
  await client.del(...Object.keys(kept));
  const report = await accounts.migrate();
  assert.deepEqual(await indexes(), kept);
  assert.deepEqual(
    { ...report },
    {
      projects: 4,
      liveKeys: 8,
      pendingRequests: 4,
      decidedRequestsTrimmed: 0,
      workspaces: 2,
      liveServiceAccounts: 2,
      revokedKeysTrimmed: 0,
      revokedServiceAccountsTrimmed: 0,
      // 1,200 written per workspace, and each filed access request's own entry (two per project).
      auditEntriesIndexed: 2_400 + 8,
    },
  );
  const filtered = await accounts.audit.page('acme', { action: 'member.added', limit: 500 });
  assert.equal(filtered.entries.length, 400);
  assert.ok(filtered.entries.every((e) => e.action === 'member.added'));
  await accounts.migrate();
  assert.deepEqual(await indexes(), kept, 'a second run changes nothing');
});

test('migrate() trims a project history of decided access requests kept whole by 0.1.0 to the last DECIDED_REQUESTS_KEPT', async () => {
  await accounts.workspaces.create({ slug: 'initech', owner: 'user_initech' });
  await accounts.workspaces.createProject({ slug: 'initech-web', workspace: 'initech' });
  const at = Date.parse('2025-06-01T00:00:00Z');
  const ids: string[] = [];
  // As 0.1.0 wrote them: every decided request kept in the project's list.
  for (let i = 0; i < DECIDED_REQUESTS_KEPT + 150; i++) {
    const id = `ar_old${String(i).padStart(4, '0')}`;
    ids.push(id);
    await client.hset(K.accessRequest(id), {
      id,
      project: 'initech-web',
      requested_level: 'VIEWER',
      reason: 'old',
      status: 'approved',
      requester: JSON.stringify({ type: 'key', id: `key_old${i}`, label: 'old' }),
      created_at: new Date(at + i * 1000).toISOString(),
      decided_at: new Date(at + i * 1000 + 500).toISOString(),
      granted_level: 'VIEWER',
    });
    await client.zadd(K.projectAccessRequests('initech-web'), at + i * 1000, id);
  }
  const report = await accounts.migrate();
  assert.equal(report.decidedRequestsTrimmed, 150);
  assert.deepEqual(await client.zrange(K.projectAccessRequests('initech-web'), 0, -1), ids.slice(150));
  assert.equal(await client.exists(K.accessRequest(ids[0]!)), 0);
  assert.equal((await accounts.migrate()).decidedRequestsTrimmed, 0, 'a second run trims nothing');
});
