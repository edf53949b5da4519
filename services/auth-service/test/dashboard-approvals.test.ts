/**
 * Project > Approvals (docs/approvals.md): the project's admin sees a held call with its tool,
 * its arguments as they will run and its caller, escaped; approving through the page's form
 * approves that call's hash once; denying is final; a member who is not an admin is refused.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { signedIn, startAuth, TEST_PASSWORD, type AuthFixture, type SignedIn } from './support.ts';

let f: AuthFixture;
let admin: SignedIn;
let viewer: SignedIn;
let slug: string;
let workspace: string;

before(async () => {
  f = await startAuth();
  const owner = await f.accounts.users.create({ email: 'approver@example.com', password: TEST_PASSWORD, emailVerified: true });
  workspace = owner.workspace;
  slug = (await f.accounts.workspaces.createProject({ slug: 'held', workspace })).slug;
  const member = await f.accounts.users.create({ email: 'onlooker@example.com', password: TEST_PASSWORD, emailVerified: true });
  await f.accounts.workspaces.setRole(slug, member.id, 'VIEWER');
  // A page with a form, for the CSRF token.
  admin = await signedIn(f, owner.email, { page: `/dashboard/projects/${slug}/keys/new` });
  viewer = await signedIn(f, member.email, { page: '/dashboard/projects/new' });
});
after(() => f.close());

const hold = (args: Record<string, unknown>) =>
  f.accounts.approvals.create(
    {
      project: slug,
      workspace,
      tool: 'notes__write_note',
      arguments: args,
      caller: { type: 'key', id: 'key_agent', label: 'agent', clientId: 'svc-key:key_agent' },
    },
    { source: '192.0.2.1', requestId: 'test' },
  );

const page = async (who: SignedIn) => {
  const res = await fetch(`${f.url}/dashboard/projects/${slug}/approvals`, { headers: { cookie: who.cookie } });
  return { status: res.status, html: await res.text() };
};

async function post(who: SignedIn, id: string, verb: 'approve' | 'deny', fields: Record<string, string> = {}) {
  const res = await fetch(`${f.url}/dashboard/projects/${slug}/approvals/${id}/${verb}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: who.cookie, origin: f.url },
    body: new URLSearchParams({ csrf: who.csrf, ...fields }),
    redirect: 'manual',
  });
  return { status: res.status, location: res.headers.get('location') ?? '', html: await res.text() };
}

test('the admin sees the held call, escaped, and approves it once through the form', async () => {
  const held = await hold({ title: '<script>x</script>', text: 'ship' });
  const shown = await page(admin);
  assert.equal(shown.status, 200);
  assert.match(shown.html, /notes__write_note/);
  assert.match(shown.html, /&lt;script&gt;x&lt;\/script&gt;/);
  assert.doesNotMatch(shown.html, /<script>x<\/script>/);
  const hash = new RegExp(`name="call_hash" value="${held.callHash}"`);
  assert.match(shown.html, hash, 'the form carries the hash of the call shown');

  const approved = await post(admin, held.id, 'approve', { call_hash: held.callHash });
  assert.equal(approved.status, 303, approved.html.slice(0, 300));
  assert.equal((await f.accounts.approvals.get(slug, held.id))?.status, 'approved');
  const again = await post(admin, held.id, 'approve', { call_hash: held.callHash });
  assert.equal(again.status, 409);
});

test('an approval of another hash changes nothing; a denial is final; a viewer is refused', async () => {
  const held = await hold({ title: 'b', text: 'c' });
  assert.equal((await post(admin, held.id, 'approve', { call_hash: 'f'.repeat(64) })).status, 409);
  assert.equal((await f.accounts.approvals.get(slug, held.id))?.status, 'pending');
  assert.equal((await page(viewer)).status, 403);
  assert.ok(viewer.csrf, 'the viewer posts with a valid form token');
  const refused = await post(viewer, held.id, 'deny');
  assert.equal(refused.status, 403);
  assert.match(refused.html, /Only the project(&#39;|')s admins can decide calls held for an approval/);
  assert.equal((await post(admin, held.id, 'deny')).status, 303);
  assert.equal((await post(admin, held.id, 'approve', { call_hash: held.callHash })).status, 409);
  assert.equal((await f.accounts.approvals.get(slug, held.id))?.status, 'denied');
});
