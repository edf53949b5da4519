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

test('migrate() beside live revocations, decisions and new requests brings back nothing revoked or decided and keeps newer latest pointers', async () => {
  // docs/operations.md "Upgrading": migrate runs while the services serve. Each item is added then
  // read again (migrate.ts), and a latest pointer is set only where none is kept. The services'
  // writes go through their own connection, each started the moment migrate reads what it changes
  // (Redis MONITOR names the connection of each command), so they land inside migrate's read-then-write.
  await client.flushall();
  const live = connectRedis(redis.url);
  const services = createAccounts(live, { pepper: 'p'.repeat(32), bcryptCost: 4 });
  const monitor = await client.monitor();
  try {
    const migrator = /addr=(\S+)/.exec(String(await client.client('INFO')))?.[1];
    assert.ok(migrator, 'the connection migrate uses');
    await accounts.workspaces.create({ slug: 'hooli', owner: 'user_hooli' });
    await accounts.workspaces.createProject({ slug: 'hooli-web', workspace: 'hooli' });
    const M = 24;
    for (let round = 0; round < 4; round++) {
      const keys = await Promise.all(
        Array.from({ length: M }, (_, i) =>
          accounts.keys.createProjectKey({ project: 'hooli-web', workspace: 'hooli', name: `k${round}-${i}` }),
        ),
      );
      const bots = await Promise.all(
        Array.from({ length: M }, (_, i) => accounts.bots.create({ workspace: 'hooli', name: `b${round}-${i}` })),
      );
      const file = (i: number) =>
        services.accessRequests.create(
          { project: 'hooli-web', requester: { type: 'key', id: keys[i]!.id, label: `k${i}` }, requestedLevel: 'EDITOR', reason: 'r' },
          { source: '192.0.2.1', requestId: 'test' },
        );
      const asked = await Promise.all(Array.from({ length: M }, (_, i) => file(i)));
      // Half the requests are approved before migrate; their requesters ask again while it runs.
      for (let i = 0; i < M; i += 2) await services.accessRequests.decide(asked[i]!.id, true, 'VIEWER');
      const changes: Promise<unknown>[] = [];
      const refiled: Record<string, string> = {};
      const onRead: Record<string, () => Promise<unknown>> = {
        [`zrange ${K.projectAccessRequests('hooli-web')}`]: async () => {
          for (let i = 0; i < M; i += 2) refiled[keys[i]!.id] = (await file(i)).id;
        },
      };
      for (let i = 0; i < M; i++) {
        onRead[`get ${K.apiKeyById(keys[i]!.id)}`] = () => services.keys.revoke(keys[i]!.id);
        onRead[`hgetall ${K.bot(bots[i]!.bot.id)}`] = () => services.bots.revoke(bots[i]!.bot.id);
        if (i % 2) onRead[`hgetall ${K.accessRequest(asked[i]!.id)}`] = () => services.accessRequests.decide(asked[i]!.id, false);
      }
      const listener = (_time: string, args: string[], source: string) => {
        const change = source === migrator ? onRead[`${String(args[0]).toLowerCase()} ${args[1]}`] : undefined;
        if (!change) return;
        delete onRead[`${String(args[0]).toLowerCase()} ${args[1]}`];
        changes.push(change());
      };
      monitor.on('monitor', listener);
      await accounts.migrate();
      monitor.off('monitor', listener);
      await Promise.all(changes);
      assert.equal(changes.length, 1 + M + M + M / 2, `round ${round}: every change was made during migrate`);
      const latest = await client.hgetall(K.projectLatestRequests('hooli-web'));
      for (let i = 0; i < M; i++) {
        const label = `round ${round}, item ${i}`;
        assert.equal(await client.zscore(K.projectLiveKeys('hooli-web'), keys[i]!.id), null, `${label}: a revoked key is not live`);
        assert.equal((await accounts.bots.get(bots[i]!.bot.id))?.revoked, true, `${label}: a revoked service account stays revoked`);
        if (i % 2)
          assert.equal(
            await client.sismember(K.projectPendingRequests('hooli-web'), asked[i]!.id),
            0,
            `${label}: a decided request is not pending`,
          );
        else assert.equal(latest[`key:${keys[i]!.id}`], refiled[keys[i]!.id], `${label}: the latest pointer is the newest request`);
      }
    }
  } finally {
    monitor.disconnect();
    live.disconnect();
  }
});
