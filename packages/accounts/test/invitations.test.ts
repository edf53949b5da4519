/**
 * Invitations (docs/management.md "Invitations"): only a confirmed account whose address is the
 * invited one turns an invitation into a membership, once; a link lives INVITATION_TTL_SECONDS;
 * a project holds at most `pendingInvitationsPerProject` pending ones (50 in production).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import {
  AccountError,
  INVITATION_RENEW_SECONDS,
  INVITATION_TTL_SECONDS,
  K,
  connectRedis,
  createAccounts,
  type Accounts,
  type Redis,
} from '@svc/accounts';
import { startRedis, testClock, type RedisFixture } from '@svc/testkit';

let redis: RedisFixture;
let client: Redis;
let accounts: Accounts;
const clock = testClock({ start: Date.UTC(2026, 0, 1) });

before(async () => {
  redis = await startRedis();
  client = connectRedis(redis.url);
  accounts = createAccounts(client, { pepper: 'p'.repeat(32), bcryptCost: 4, now: clock.now, limits: { pendingInvitationsPerProject: 5 } });
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

const invite = (email: string, project = 'web') =>
  accounts.invitations.create({ project, email, role: 'EDITOR', invitedBy: 'owner@example.com' });
const roleOn = async (userId: string) => accounts.workspaces.roleOf(userId, (await accounts.workspaces.getProject('web'))!);

test('only a confirmed account of the invited address accepts, once; others leave the link for its owner', async () => {
  const { token } = await invite('Ada@Example.com');
  const stranger = await accounts.users.create({ email: 'mallory@example.com', password: 'a long enough passphrase', emailVerified: true });
  assert.deepEqual(await accounts.invitations.accept(token, stranger), { refused: 'other_address' });
  assert.equal(await roleOn(stranger.id), 'NONE');

  // Someone signed up with the invited address but never proved it.
  const squatter = await accounts.users.create({ email: 'ada@example.com', password: 'a long enough passphrase' });
  assert.deepEqual(await accounts.invitations.accept(token, squatter), { refused: 'unconfirmed' });
  assert.equal(await roleOn(squatter.id), 'NONE');

  // The address's owner confirms it (the mailed link) and accepts.
  await accounts.users.markEmailVerified(squatter.id);
  const ada = (await accounts.users.get(squatter.id))!;
  const accepted = await accounts.invitations.accept(token, ada);
  assert.ok('invitation' in accepted && accepted.invitation.role === 'EDITOR');
  assert.equal(await roleOn(ada.id), 'EDITOR');
  assert.deepEqual(await accounts.invitations.accept(token, ada), { refused: 'unknown' }, 'the link works once');
  assert.deepEqual(await accounts.invitations.list('web'), []);
});

test(`a link lives ${INVITATION_TTL_SECONDS} s (7 days); inviting again replaces it, at most once an hour; cancelling ends it`, async () => {
  assert.equal(INVITATION_TTL_SECONDS, 7 * 86_400);
  const first = await invite('grace@example.com');
  const ttl = await client.ttl(K.invitation(first.invitation.id));
  assert.ok(ttl > INVITATION_TTL_SECONDS - 5 && ttl <= INVITATION_TTL_SECONDS, `TTL ${ttl}`);
  assert.equal(first.invitation.expiresAt - first.invitation.createdAt, INVITATION_TTL_SECONDS * 1000);

  await assert.rejects(
    invite('grace@example.com'),
    (err: unknown) => err instanceof AccountError && err.code === 'conflict' && /was invited less than an hour ago/.test(err.message),
    'no second mail to one address within the hour',
  );
  assert.equal(INVITATION_RENEW_SECONDS, 3600);
  clock.advance(INVITATION_RENEW_SECONDS * 1000);
  const second = await invite('grace@example.com');
  assert.equal(second.invitation.id, first.invitation.id, 'one invitation per address and project');
  assert.equal(await accounts.invitations.ofToken(first.token), null, 'the earlier link no longer works');
  assert.ok(await accounts.invitations.ofToken(second.token));
  assert.equal((await accounts.invitations.list('web')).length, 1);

  clock.advance(INVITATION_TTL_SECONDS * 1000 + 1);
  assert.equal(await accounts.invitations.ofToken(second.token), null, 'expired');
  assert.deepEqual(await accounts.invitations.list('web'), []);

  const third = await invite('grace@example.com');
  assert.equal(await accounts.invitations.cancel('web', third.invitation.id), true);
  assert.equal(await accounts.invitations.ofToken(third.token), null, 'cancelled');
});

test('cancelling an invitation does not let its address be mailed again within the hour; the refusal writes nothing', async () => {
  const first = await invite('henry@example.com');
  assert.equal(await accounts.invitations.cancel('web', first.invitation.id), true);
  await assert.rejects(
    invite('henry@example.com'),
    (err: unknown) =>
      err instanceof AccountError &&
      err.code === 'conflict' &&
      /invite them again after \d{4}-\d\d-\d\d \d\d:\d\d UTC\.$/.test(err.message),
  );
  assert.deepEqual(await accounts.invitations.list('web'), [], 'nothing was written');
  // Another project is another invitation.
  await accounts.workspaces.createProject({ slug: 'docs', workspace: 'acme' });
  await invite('henry@example.com', 'docs');
  clock.advance(INVITATION_RENEW_SECONDS * 1000);
  assert.ok(await invite('henry@example.com'));
});

test('pending invitations per project: the next is refused naming the limit; cancelling or expiry makes room', async () => {
  const made = [];
  for (let i = 0; i < 5; i++) made.push(await invite(`p${i}@example.com`));
  const full = (err: unknown) =>
    err instanceof AccountError &&
    err.code === 'limit' &&
    err.message === 'This project already has 5 pending invitations, the limit. Cancel invitations that were not accepted.';
  await assert.rejects(invite('sixth@example.com'), full);
  // Inviting a pending address again is refused as too soon, not as over the limit.
  await assert.rejects(invite('p0@example.com'), (err: unknown) => err instanceof AccountError && err.code === 'conflict');
  await accounts.invitations.cancel('web', made[0]!.invitation.id);
  await invite('sixth@example.com');
  await assert.rejects(invite('seventh@example.com'), full);
  clock.advance(INVITATION_TTL_SECONDS * 1000 + 1);
  await invite('seventh@example.com');
});

test('production holds 50 pending invitations per project', async () => {
  const production = createAccounts(client, { pepper: 'p'.repeat(32), bcryptCost: 4, now: clock.now });
  const make = (email: string) => production.invitations.create({ project: 'web', email, role: 'VIEWER', invitedBy: 'owner' });
  for (let i = 0; i < 50; i++) await make(`n${i}@example.com`);
  await assert.rejects(make('fifty-first@example.com'), (err: unknown) => err instanceof AccountError && err.code === 'limit');
});

test('accepting into a full project is refused naming the limit, and the link still works once room is made', async () => {
  const small = createAccounts(client, { pepper: 'p'.repeat(32), bcryptCost: 4, now: clock.now, limits: { membersPerProject: 1 } });
  const first = await small.users.create({ email: 'first@example.com', emailVerified: true });
  await small.workspaces.setRole('web', first.id, 'VIEWER');
  const { token } = await small.invitations.create({ project: 'web', email: 'second@example.com', role: 'VIEWER', invitedBy: 'owner' });
  const second = await small.users.create({ email: 'second@example.com', emailVerified: true });
  await assert.rejects(small.invitations.accept(token, second), (err: unknown) => err instanceof AccountError && err.code === 'limit');
  await small.workspaces.setRole('web', first.id, 'NONE');
  const accepted = await small.invitations.accept(token, second);
  assert.ok('invitation' in accepted, JSON.stringify(accepted));
});
