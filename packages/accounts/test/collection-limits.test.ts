/**
 * Every collection a tenant grows has a limit (docs/management.md "Collection limits"): the next
 * creation past it is refused with a message naming it, concurrent creations never pass it, and
 * revoking, removing or deciding makes room again. Small limits keep the tests quick; the last
 * test shows production's values are COLLECTION_LIMITS.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { AccountError, COLLECTION_LIMITS, K, connectRedis, createAccounts, type Accounts, type Redis } from '@svc/accounts';
import { startRedis, testClock, type RedisFixture } from '@svc/testkit';

let redis: RedisFixture;
let client: Redis;
let accounts: Accounts;
const clock = testClock({ start: Date.UTC(2026, 0, 1) });
const LIMITS = {
  keysPerProject: 25,
  projectsPerWorkspace: 5,
  serviceAccountsPerWorkspace: 5,
  membersPerProject: 25,
  pendingRequestsPerProject: 25,
};

before(async () => {
  redis = await startRedis();
  client = connectRedis(redis.url);
  accounts = createAccounts(client, { pepper: 'p'.repeat(32), bcryptCost: 4, now: clock.now, limits: LIMITS });
});
beforeEach(async () => {
  await client.flushall();
  await accounts.workspaces.create({ slug: 'acme', owner: 'user_owner' });
  await accounts.workspaces.createProject({ slug: 'web', workspace: 'acme' });
});
after(async () => {
  client.disconnect();
  await redis.stop();
});

const refusedWith = (message: string) => (err: unknown) => err instanceof AccountError && err.code === 'limit' && err.message === message;
const key = (name: string, expiresInSeconds?: number) =>
  accounts.keys.createProjectKey({ project: 'web', workspace: 'acme', name, ...(expiresInSeconds ? { expiresInSeconds } : {}) });
/** How many of `n` concurrent attempts succeeded; every other one was refused by the limit. */
async function concurrently(n: number, attempt: (i: number) => Promise<unknown>): Promise<number> {
  const results = await Promise.allSettled(Array.from({ length: n }, (_, i) => attempt(i)));
  for (const r of results)
    if (r.status === 'rejected') assert.ok(r.reason instanceof AccountError && r.reason.code === 'limit', String(r.reason));
  return results.filter((r) => r.status === 'fulfilled').length;
}

test('live API keys per project: the next is refused; revoking or expiry makes room; 20 at once at limit-5 add 5', async () => {
  const first = await key('k0');
  for (let i = 1; i < 24; i++) await key(`k${i}`);
  const expiring = await key('short', 60);
  const full = 'This project already has 25 live API keys, the limit. Revoke keys you no longer use.';
  await assert.rejects(key('one more'), refusedWith(full));
  await accounts.keys.revoke(first.id);
  await key('after revoke');
  await assert.rejects(key('one more'), refusedWith(full));
  clock.advance(61_000);
  assert.ok(expiring.record.expiresAt! < clock.now());
  await key('after expiry');
  await assert.rejects(key('one more'), refusedWith(full));

  const isLive = (k: { revoked: boolean; expiresAt: number | null }) => !k.revoked && (k.expiresAt ?? Infinity) > clock.now();
  for (const k of (await accounts.keys.listForProject('web')).filter(isLive).slice(0, 5)) await accounts.keys.revoke(k.id);
  const live = async () => (await accounts.keys.listForProject('web')).filter(isLive).length;
  assert.equal(await live(), 20);
  assert.equal(await concurrently(20, (i) => key(`race${i}`)), 5);
  assert.equal(await live(), 25);
});

test('projects per workspace: the next is refused and its slug stays free; 20 at once add only what fits', async () => {
  for (let i = 0; i < 3; i++) await accounts.workspaces.createProject({ slug: `p${i}`, workspace: 'acme' });
  // 'web' and p0..p2 make 4 of 5: of 20 at once, one fits.
  assert.equal(await concurrently(20, (i) => accounts.workspaces.createProject({ slug: `race${i}`, workspace: 'acme' })), 1);
  assert.equal((await accounts.workspaces.projectsOf('acme')).length, 5);
  await assert.rejects(
    accounts.workspaces.createProject({ slug: 'extra', workspace: 'acme' }),
    refusedWith('This workspace already has 5 projects, the limit.'),
  );
  await accounts.workspaces.create({ slug: 'other', owner: 'user_other' });
  await accounts.workspaces.createProject({ slug: 'extra', workspace: 'other' });
  assert.equal((await accounts.workspaces.getProject('extra'))?.workspace, 'other');
});

test('service accounts per workspace: the next is refused; revoking one makes room; a revoked one stays revoked', async () => {
  const bots = [];
  for (let i = 0; i < 5; i++) bots.push((await accounts.bots.create({ workspace: 'acme', name: `ci${i}` })).bot);
  const full = 'This workspace already has 5 live service accounts, the limit. Revoke service accounts you no longer use.';
  await assert.rejects(accounts.bots.create({ workspace: 'acme', name: 'extra' }), refusedWith(full));
  await accounts.bots.rotateKey(bots[1]!.id);
  await accounts.bots.revoke(bots[0]!.id);
  await accounts.bots.create({ workspace: 'acme', name: 'in its place' });
  await assert.rejects(accounts.bots.rotateKey(bots[0]!.id), (err: unknown) => err instanceof AccountError && err.code === 'conflict');

  for (const b of bots.slice(1)) await accounts.bots.revoke(b.id);
  assert.equal(await concurrently(20, (i) => accounts.bots.create({ workspace: 'acme', name: `race${i}` })), 4);
  assert.equal(await client.scard(K.workspaceLiveBots('acme')), 5);
});

test('members per project: the next is refused; a member\u2019s role still changes at the limit; removing makes room', async () => {
  for (let i = 0; i < 20; i++) await accounts.workspaces.setRole('web', `user_${i}`, 'VIEWER');
  assert.equal(await concurrently(20, (i) => accounts.workspaces.setRole('web', `user_race${i}`, 'VIEWER')), 5);
  assert.equal((await accounts.workspaces.members('web')).length, 25);
  const full = 'This project already has 25 members, the limit. Remove members who no longer need it.';
  await assert.rejects(accounts.workspaces.setRole('web', 'user_extra', 'VIEWER'), refusedWith(full));
  await accounts.workspaces.setRole('web', 'user_0', 'ADMIN');
  await accounts.workspaces.setRole('web', 'user_1', 'NONE');
  await accounts.workspaces.setRole('web', 'user_extra', 'VIEWER');
  assert.equal((await accounts.workspaces.members('web')).length, 25);
});

test('pending access requests per project: the next is refused; the same requester asks again; deciding makes room', async () => {
  const ask = (who: string) =>
    accounts.accessRequests.create(
      {
        project: 'web',
        requester: { type: 'user', id: who, label: who },
        requestedLevel: 'VIEWER',
        reason: 'work',
      },
      { source: '192.0.2.1', requestId: 'test' },
    );
  const first = await ask('user_0');
  for (let i = 1; i < 20; i++) await ask(`user_${i}`);
  assert.equal(await concurrently(20, (i) => ask(`user_race${i}`)), 5);
  const full = 'This project already has 25 access requests awaiting a decision, the limit. Ask its admins to decide them first.';
  await assert.rejects(ask('user_extra'), refusedWith(full));
  await ask('user_0');
  await accounts.accessRequests.decide(first.id, false);
  await ask('user_extra');
  assert.equal((await accounts.accessRequests.list('web')).filter((r) => r.status === 'pending').length, 25);
});

test('production uses COLLECTION_LIMITS: the 501st live key of a project is refused', async () => {
  assert.deepEqual(COLLECTION_LIMITS, {
    keysPerProject: 500,
    projectsPerWorkspace: 200,
    serviceAccountsPerWorkspace: 100,
    membersPerProject: 1000,
    pendingRequestsPerProject: 500,
    pendingInvitationsPerProject: 50,
  });
  const production = createAccounts(client, { pepper: 'p'.repeat(32), bcryptCost: 4, now: clock.now });
  const create = (name: string) => production.keys.createProjectKey({ project: 'web', workspace: 'acme', name });
  for (let i = 0; i < 500; i++) await create(`k${i}`);
  await assert.rejects(
    create('501st'),
    refusedWith('This project already has 500 live API keys, the limit. Revoke keys you no longer use.'),
  );
});
