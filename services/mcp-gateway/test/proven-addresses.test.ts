/**
 * Proven addresses at the management API (docs/management.md "Invitations"), with a real SMTP
 * server: adding an address without a confirmed account mails an invitation (202) instead of a
 * role, listed with the members and cancellable; an access request of an unconfirmed account is
 * not approved into a membership; a person whose own address is unconfirmed decides no request
 * and adds no member; adding and cancelling over and over mails an address once an hour, not once
 * a cycle. The svc CLI calls these same endpoints.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { INVITATION_RENEW_SECONDS } from '@svc/accounts';
import { startSmtpInbox, testClock, waitFor, type SmtpInbox } from '@svc/testkit';
import { seed, startFixture, type GatewayFixture, type Seeded } from './support.ts';

let f: GatewayFixture;
let smtp: SmtpInbox;
let owner: Seeded;
let ownerKey: string;
const clock = testClock({ frozen: false });

before(async () => {
  smtp = await startSmtpInbox();
  f = await startFixture({ SMTP_URL: smtp.url }, { now: clock.now });
  owner = await seed(f.accounts);
  ownerKey = (await f.accounts.keys.createUserKey({ userId: owner.userId })).key;
});
after(async () => {
  await f.close();
  await smtp.close();
});

async function api(key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(f.url + path, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed response body: its shape is what the assertions check
  return { status: res.status, body: (await res.json()) as any };
}
const roleOf = async (userId: string, slug = owner.project) =>
  f.accounts.workspaces.roleOf(userId, (await f.accounts.workspaces.getProject(slug))!);
/** An account made by sign-up whose address was never confirmed. */
const unconfirmed = (email: string) => f.accounts.users.create({ email, password: 'a long enough passphrase' });

test('adding an address without an account: 202, an invitation mailed, listed with the members, cancellable', async () => {
  const members = `/api/v1/projects/${owner.project}/members`;
  const added = await api(ownerKey, 'POST', members, { email: 'Newcomer@example.com', role: 'EDITOR' });
  assert.equal(added.status, 202, JSON.stringify(added.body));
  assert.deepEqual(added.body, { email: 'newcomer@example.com', role: 'EDITOR', invited: true });
  const mail = await waitFor(() => smtp.mails.find((m) => m.to === 'newcomer@example.com'), { message: 'the invitation mail' });
  assert.match(mail.text, /\/invitation\?token=[A-Za-z0-9_-]{43}/);
  const token = /\/invitation\?token=([A-Za-z0-9_-]+)/.exec(mail.text)?.[1] ?? '';

  const listed = await api(ownerKey, 'GET', members);
  assert.equal(listed.status, 200);
  assert.equal(listed.body.invitations.length, 1);
  const [invitation] = listed.body.invitations;
  assert.equal(invitation.email, 'newcomer@example.com');
  assert.equal(invitation.role, 'EDITOR');
  assert.equal(Date.parse(invitation.expiresAt) - Date.parse(invitation.createdAt), 7 * 86_400_000);

  const cancelled = await api(ownerKey, 'DELETE', `/api/v1/projects/${owner.project}/invitations/${invitation.id}`);
  assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
  assert.deepEqual((await api(ownerKey, 'GET', members)).body.invitations, []);
  assert.equal(await f.accounts.invitations.ofToken(token), null, 'the mailed link no longer works');
  assert.equal((await api(ownerKey, 'DELETE', `/api/v1/projects/${owner.project}/invitations/${invitation.id}`)).status, 404);
});

test('adding an account whose address is unconfirmed invites it; it gets no role until it accepts', async () => {
  const squatter = await unconfirmed('victim@example.com');
  const added = await api(ownerKey, 'POST', `/api/v1/projects/${owner.project}/members`, { email: 'victim@example.com', role: 'ADMIN' });
  assert.equal(added.status, 202, JSON.stringify(added.body));
  assert.equal(await roleOf(squatter.id), 'NONE');
});

test('approving the access request of an unconfirmed account is refused (409); denying works', async () => {
  const asker = await unconfirmed('asker@example.com');
  const request = await f.accounts.accessRequests.create(
    {
      project: owner.project,
      requester: { type: 'user', id: asker.id, label: asker.email },
      requestedLevel: 'EDITOR',
      reason: '',
    },
    { source: '192.0.2.1', requestId: 'test' },
  );
  const path = `/api/v1/projects/${owner.project}/access-requests/${request.id}`;
  const approved = await api(ownerKey, 'POST', `${path}/approve`, { level: 'EDITOR' });
  assert.equal(approved.status, 409, JSON.stringify(approved.body));
  assert.match(approved.body.error.message, /has not confirmed that address/);
  assert.equal(await roleOf(asker.id), 'NONE');
  assert.equal((await api(ownerKey, 'POST', `${path}/deny`)).status, 200);
});

test('a person whose address is unconfirmed decides no request and adds no member (403)', async () => {
  // Their own workspace's project, and a personal key from before confirmation was required.
  const person = await unconfirmed(`unproven-${Date.now()}@example.com`);
  await f.accounts.workspaces.createProject({ slug: `unproven-${Date.now()}`, workspace: person.workspace });
  const [slug] = await f.accounts.workspaces.projectsOf(person.workspace);
  const key = (await f.accounts.keys.createUserKey({ userId: person.id })).key;
  const request = await f.accounts.accessRequests.create(
    {
      project: slug!,
      requester: { type: 'user', id: owner.userId, label: owner.email },
      requestedLevel: 'VIEWER',
      reason: '',
    },
    { source: '192.0.2.1', requestId: 'test' },
  );
  const decided = await api(key, 'POST', `/api/v1/projects/${slug}/access-requests/${request.id}/approve`, { level: 'VIEWER' });
  assert.equal(decided.status, 403, JSON.stringify(decided.body));
  assert.match(decided.body.error.message, /^Confirm your email address before you approve an access request/);
  assert.equal(await roleOf(owner.userId, slug), 'NONE');
  const added = await api(key, 'POST', `/api/v1/projects/${slug}/members`, { email: owner.email, role: 'ADMIN' });
  assert.equal(added.status, 403, JSON.stringify(added.body));
  assert.equal(await roleOf(owner.userId, slug), 'NONE');
});

test('add, cancel, add again, over and over: one invitation mail per address and project an hour, not one a cycle', async () => {
  const members = `/api/v1/projects/${owner.project}/members`;
  const address = 'cycled@example.com';
  const mailsTo = (to: string) => smtp.mails.filter((m) => m.to === to).length;
  const add = () => api(ownerKey, 'POST', members, { email: address, role: 'VIEWER' });
  /** Cancels the address's pending invitation, if it has one (after a refused add it has none). */
  const cancelPending = async () => {
    const pending = (await api(ownerKey, 'GET', members)).body.invitations.find((i: { email: string }) => i.email === address);
    if (pending) assert.equal((await api(ownerKey, 'DELETE', `/api/v1/projects/${owner.project}/invitations/${pending.id}`)).status, 200);
  };
  assert.equal((await add()).status, 202);
  await waitFor(() => mailsTo(address) === 1 || undefined, { message: 'the first invitation mail' });
  for (let cycle = 0; cycle < 5; cycle++) {
    await cancelPending();
    const again = await add();
    assert.equal(again.status, 409, JSON.stringify(again.body));
    assert.match(
      again.body.error.message,
      /invited less than an hour ago and the invitation cancelled; invite them again after \d{4}-\d\d-\d\d \d\d:\d\d UTC/,
    );
    assert.equal(again.body.error.field, 'email');
  }
  // A mail sent after the cycles arrives; none more has reached the cycled address.
  const marker = `after-cycles-${Math.random().toString(36).slice(2, 8)}@example.com`;
  assert.equal((await api(ownerKey, 'POST', members, { email: marker, role: 'VIEWER' })).status, 202);
  await waitFor(() => mailsTo(marker) === 1 || undefined, { message: 'the mail sent after the cycles' });
  assert.equal(mailsTo(address), 1);
  // An hour on (INVITATION_RENEW_SECONDS), the address may be invited, and mailed, again.
  clock.advance(INVITATION_RENEW_SECONDS * 1000);
  assert.equal((await add()).status, 202);
  await waitFor(() => mailsTo(address) === 2 || undefined, { message: 'the invitation mailed an hour later' });
});
