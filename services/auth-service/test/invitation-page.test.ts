/**
 * The invitation link's page (docs/management.md "Invitations"), as a browser posts it: opening it
 * changes nothing; another account, or an unconfirmed account of the invited address, is refused
 * and leaves the link for the owner; the owner, once confirmed, becomes a member, once. And the
 * dashboard refuses decisions and new members to a person whose own address is unconfirmed.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startAuth, TEST_PASSWORD, type AuthFixture, signedIn } from './support.ts';

let f: AuthFixture;
before(async () => {
  f = await startAuth();
});
after(async () => {
  await f.close();
});

/** Opens the link as `cookie`'s browser and presses Accept; the answer's status and text. */
async function accept(cookie: string, token: string) {
  const page = await fetch(`${f.url}/invitation?token=${token}`, { headers: { cookie }, redirect: 'manual' });
  const html = await page.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const res = await fetch(`${f.url}/invitation`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ csrf, token }),
  });
  return { opened: page.status, status: res.status, html: await res.text() };
}

test('only the confirmed owner of the invited address joins, once', async () => {
  const owner = await f.accounts.users.create({ email: 'owner@example.com', password: TEST_PASSWORD, emailVerified: true });
  const project = await f.accounts.workspaces.createProject({ slug: 'shared', workspace: owner.workspace });
  const { token } = await f.accounts.invitations.create({
    project: project.slug,
    email: 'ada@example.com',
    role: 'EDITOR',
    invitedBy: owner.email,
  });
  const roleOf = async (id: string) => f.accounts.workspaces.roleOf(id, project);

  const anonymous = await fetch(`${f.url}/invitation?token=${token}`, { redirect: 'manual' });
  assert.equal(anonymous.status, 303);
  assert.match(anonymous.headers.get('location') ?? '', /^\/signin\?return=/);

  await f.accounts.users.create({ email: 'mallory@example.com', password: TEST_PASSWORD, emailVerified: true });
  const mallory = await accept((await signedIn(f, 'mallory@example.com')).cookie, token);
  assert.equal(mallory.opened, 200);
  assert.equal(mallory.status, 403);
  assert.match(mallory.html, /This invitation is for another address than mallory@example\.com/);

  const squatter = await f.accounts.users.create({ email: 'ada@example.com', password: TEST_PASSWORD });
  const squatterBrowser = (await signedIn(f, 'ada@example.com')).cookie;
  const refused = await accept(squatterBrowser, token);
  assert.equal(refused.status, 403);
  assert.match(refused.html, /Confirm that ada@example\.com is your address first/);
  assert.equal(await roleOf(squatter.id), 'NONE');

  await f.accounts.users.markEmailVerified(squatter.id);
  const joined = await accept(squatterBrowser, token);
  assert.equal(joined.status, 200, joined.html);
  assert.match(joined.html, /You are now EDITOR on <strong>shared<\/strong>/);
  assert.equal(await roleOf(squatter.id), 'EDITOR');
  const again = await accept(squatterBrowser, token);
  assert.equal(again.opened, 400, 'the link works once');
  assert.match(
    await (await fetch(`${f.url}/invitation?token=${token}`, { headers: { cookie: squatterBrowser } })).text(),
    /expired, was cancelled or was already accepted/,
  );
  const log = await f.accounts.audit.page(owner.workspace, { action: 'member.invitation_accepted' });
  assert.equal(log.entries.length, 1);
});

test('in the dashboard, a person whose address is unconfirmed decides no request and adds no member', async () => {
  const person = await f.accounts.users.create({ email: 'unproven@example.com', password: TEST_PASSWORD });
  const project = await f.accounts.workspaces.createProject({ slug: 'unproven-own', workspace: person.workspace });
  const asker = await f.accounts.users.create({ email: 'asker@example.com', password: TEST_PASSWORD, emailVerified: true });
  const request = await f.accounts.accessRequests.create(
    {
      project: project.slug,
      requester: { type: 'user', id: asker.id, label: asker.email },
      requestedLevel: 'EDITOR',
      reason: '',
    },
    { source: '192.0.2.1', requestId: 'test' },
  );
  const browser = (await signedIn(f, person.email)).cookie;
  const formOf = async (path: string) => {
    const res = await fetch(`${f.url}${path}`, { headers: { cookie: browser } });
    assert.equal(res.status, 200, path);
    return /name="csrf" value="([^"]+)"/.exec(await res.text())?.[1] ?? '';
  };
  const postAs = async (path: string, form: Record<string, string>) => {
    const res = await fetch(`${f.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: browser },
      body: new URLSearchParams(form),
      redirect: 'manual',
    });
    return { status: res.status, html: await res.text() };
  };
  const base = `/dashboard/projects/${project.slug}`;
  const approve = await postAs(`${base}/requests/${request.id}/approve`, { csrf: await formOf(`${base}/requests`), level: 'EDITOR' });
  assert.equal(approve.status, 403);
  assert.match(approve.html, /Confirm your email address before you approve an access request/);
  assert.equal(await f.accounts.workspaces.roleOf(asker.id, project), 'NONE');
  const add = await postAs(`${base}/members`, { csrf: await formOf(`${base}/members`), email: asker.email, role: 'ADMIN' });
  assert.equal(add.status, 403);
  assert.match(add.html, /Confirm your email address before you add a member or change a role/);
  assert.equal(await f.accounts.workspaces.roleOf(asker.id, project), 'NONE');
});
