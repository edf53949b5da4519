/**
 * The invitation link's page (docs/management.md "Invitations"), as a browser posts it: opening it
 * changes nothing; another account, or an unconfirmed account of the invited address, is refused
 * and leaves the link for the owner; the owner, once confirmed, becomes a member, once.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startAuth, TEST_PASSWORD, type AuthFixture } from './support.ts';

let f: AuthFixture;
before(async () => {
  f = await startAuth();
});
after(async () => {
  await f.close();
});

async function signedIn(email: string): Promise<string> {
  const form = await fetch(`${f.url}/signin`);
  const cookie = form.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const res = await fetch(`${f.url}/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ csrf, email, password: TEST_PASSWORD, return: '/' }),
    redirect: 'manual',
  });
  assert.equal(res.status, 303);
  return `${cookie}; ${res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ')}`;
}

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
  const mallory = await accept(await signedIn('mallory@example.com'), token);
  assert.equal(mallory.opened, 200);
  assert.equal(mallory.status, 403);
  assert.match(mallory.html, /This invitation is for another address than mallory@example\.com/);

  const squatter = await f.accounts.users.create({ email: 'ada@example.com', password: TEST_PASSWORD });
  const squatterBrowser = await signedIn('ada@example.com');
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
