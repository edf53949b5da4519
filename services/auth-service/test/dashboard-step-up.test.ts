/**
 * The dashboard door of the operations' declared step-up (docs/security.md "Rules on the
 * operation"), generated from DASHBOARD_FORMS and the operations they perform: with a session whose
 * second factor is older than STEP_UP_MINUTES, every form whose operation says `stepUp: 'always'`
 * sends the browser to the step-up page (and changes nothing), and every other form does not; with
 * a factor used just now, none does. A form declared later is covered the day it is declared.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MANAGEMENT_OPERATIONS, STEP_UP_MINUTES } from '@svc/management/contract';
import { sampleOf } from '@svc/testkit';
import { WebhookStore } from '@svc/webhooks';
import type { DashboardForm } from '../src/dashboard/form.ts';
import { DASHBOARD_FORMS } from '../src/dashboard/routes.ts';
import { FACTOR_AT_FIELD } from '../src/factors/step-up.ts';
import { signedIn, startAuth, TEST_PASSWORD, type AuthFixture, type SignedIn } from './support.ts';

let f: AuthFixture;
let owner: { id: string; email: string; workspace: string };
let browser: SignedIn;
/** The path parameters of every form, by the section its `:id` belongs to. */
let ids: Record<string, Record<string, string>>;

before(async () => {
  f = await startAuth();
  const user = await f.accounts.users.create({ email: 'doors@example.com', password: TEST_PASSWORD, emailVerified: true });
  owner = { id: user.id, email: user.email, workspace: user.workspace };
  const ws = user.workspace;
  const slug = (await f.accounts.workspaces.createProject({ slug: 'doors', workspace: ws })).slug;
  const key = await f.accounts.keys.createProjectKey({ project: slug, workspace: ws, level: 'EDITOR', name: 'kept' });
  const member = await f.accounts.users.create({ email: 'member@example.com', password: TEST_PASSWORD, emailVerified: true });
  await f.accounts.workspaces.setRole(slug, member.id, 'VIEWER');
  const asker = await f.accounts.users.create({ email: 'asker@example.com', password: TEST_PASSWORD, emailVerified: true });
  const request = await f.accounts.accessRequests.create(
    { project: slug, requester: { type: 'user', id: asker.id, label: asker.email }, requestedLevel: 'EDITOR', reason: '' },
    { source: '192.0.2.1', requestId: 'test' },
  );
  const { bot } = await f.accounts.bots.create({ workspace: ws, name: 'deployer' });
  const hook = await new WebhookStore(f.client, { pepper: f.config.keyPepper }).create(ws, {
    url: 'https://receiver.example/hook',
    events: ['key.created'],
  });
  const { invitation } = await f.accounts.invitations.create({
    project: slug,
    email: 'new@example.com',
    role: 'VIEWER',
    invitedBy: user.email,
  });
  const common = { slug, ws, user: member.id };
  ids = {
    keys: { ...common, id: key.id },
    requests: { ...common, id: request.id },
    'service-accounts': { ...common, id: bot.id },
    webhooks: { ...common, id: hook!.endpoint.id },
    invitations: { ...common, id: invitation.id },
    account: { ...common, id: 'none' },
  };
  // Signed in before the factor is enrolled: the session has used no factor.
  browser = await signedIn(f, user.email, { page: `/dashboard/projects/${slug}/keys/new` });
  await f.accounts.factors.beginTotp(user.id, 'JBSWY3DPEHPK3PXP');
  assert.ok(Array.isArray(await f.accounts.factors.confirmTotp(user.id, 1)));
});
after(() => f.close());

/** Sets when the owner's sessions last used a factor. */
async function factorUsed(at: number): Promise<void> {
  for (const key of await f.client.keys('svc:oidc:web-session:*'))
    if ((await f.client.hget(key, 'userId')) === owner.id) await f.client.hset(key, FACTOR_AT_FIELD, String(at));
}

/** Posts the form with the least fields its schema accepts, confirmed; where the answer sends the browser. */
async function submit(form: DashboardForm): Promise<{ status: number; location: string }> {
  const section = /^\/(?:projects|workspaces)\/:\w+\/([\w-]+)/.exec(form.path)?.[1] ?? 'account';
  const params = ids[section] ?? ids['account']!;
  const path = `/dashboard${form.path.replace(/:(\w+)/g, (_m, name: string) => encodeURIComponent(params[name] ?? 'none'))}`;
  const fields = sampleOf(form.schema) as Record<string, unknown>;
  const body = new URLSearchParams({ csrf: browser.csrf, confirm: 'yes' });
  for (const [name, value] of Object.entries(fields)) body.set(name, String(value));
  const res = await fetch(f.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: browser.cookie, origin: f.url },
    body,
    redirect: 'manual',
  });
  await res.arrayBuffer();
  return { status: res.status, location: res.headers.get('location') ?? '' };
}

const needsStepUp = (form: DashboardForm) => form.operation !== null && MANAGEMENT_OPERATIONS[form.operation].policy.stepUp === 'always';
const toStepUp = (r: { location: string }) => r.location.startsWith('/factors/step-up?return=');

test(`a session whose factor is older than ${STEP_UP_MINUTES} minutes is sent to step up by exactly the forms whose operation declares it`, async () => {
  await factorUsed(Date.now() - (STEP_UP_MINUTES * 60_000 + 1000));
  const stepping = DASHBOARD_FORMS.filter(needsStepUp);
  assert.ok(stepping.length >= 15, `forms that need a step-up: ${stepping.length}`);
  const keysBefore = (await f.accounts.keys.listForProject('doors')).length;
  for (const form of stepping) {
    const r = await submit(form);
    assert.equal(r.status, 303, `${form.operation} ${form.path}`);
    assert.ok(toStepUp(r), `${form.operation} ${form.path}: ${r.location}`);
    assert.match(decodeURIComponent(r.location), /return=\/dashboard\//, `${form.operation}: back to its page after`);
  }
  assert.equal((await f.accounts.keys.listForProject('doors')).length, keysBefore, 'nothing was made');
  for (const form of DASHBOARD_FORMS.filter((x) => x.operation !== null && !needsStepUp(x))) {
    const r = await submit(form);
    assert.ok(!toStepUp(r), `${form.operation} ${form.path} needs no step-up: ${r.status} ${r.location}`);
  }
});

test('with a factor used just now, no form is sent to step up', async () => {
  await factorUsed(Date.now());
  for (const form of DASHBOARD_FORMS.filter(needsStepUp)) {
    const r = await submit(form);
    assert.ok(!toStepUp(r), `${form.operation} ${form.path}: ${r.status} ${r.location}`);
  }
});
