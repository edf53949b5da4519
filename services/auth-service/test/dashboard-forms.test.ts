/**
 * The dashboard's forms read through their declared schemas (docs/dashboard.md "Forms"): a field
 * missing, of the wrong type or sent twice is a 400 page naming it and changes nothing; and,
 * generated, every form route of DASHBOARD_FORMS posted with wrong types, repeated fields, huge
 * values and stray fields answers a redirect or a 4xx (a confirmation page for a confirmed
 * form's first step), never a 5xx. Requests are typed from the same declarations (FormFields).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { testClock } from '@svc/testkit';
import { CONFIRM_FIELDS, type DashboardForm } from '../src/dashboard/form.ts';
import { KEY_FORMS } from '../src/dashboard/keys/forms.ts';
import { MEMBER_FORMS } from '../src/dashboard/members/forms.ts';
import { REQUEST_FORMS } from '../src/dashboard/requests/forms.ts';
import { DASHBOARD_FORMS, FORM_BODY_LIMIT } from '../src/dashboard/routes.ts';
import { signedIn, startAuth, TEST_PASSWORD, type AuthFixture, type SignedIn } from './support.ts';

// The management bucket counts a workspace's changes per minute: the clock moves a minute past
// every generated request, so each one reaches its form's check rather than a 429.
const clock = testClock();
let f: AuthFixture;
let browser: SignedIn;
let slug: string;
let workspace: string;
let keyId: string;
let requestId: string;

/** A form's fields as its schema names them, each a text, or several texts for a repeated field. */
type FormFields<F extends DashboardForm> = { [K in keyof F['schema']['properties']]?: string | string[] } & Record<
  string,
  string | string[]
>;

before(async () => {
  f = await startAuth({ now: clock.now });
  const owner = await f.accounts.users.create({ email: 'forms@example.com', password: TEST_PASSWORD, emailVerified: true });
  workspace = owner.workspace;
  slug = (await f.accounts.workspaces.createProject({ slug: 'forms', workspace })).slug;
  keyId = (await f.accounts.keys.createProjectKey({ project: slug, workspace, level: 'VIEWER', name: 'kept' })).id;
  const asker = await f.accounts.users.create({ email: 'asker@example.com', password: TEST_PASSWORD, emailVerified: true });
  const asked = await f.accounts.accessRequests.create(
    {
      project: slug,
      requester: { type: 'user', id: asker.id, label: asker.email },
      requestedLevel: 'EDITOR',
      reason: '',
    },
    { source: '192.0.2.1', requestId: 'test' },
  );
  requestId = asked.id;
  browser = await signedIn(f, owner.email, { page: `/dashboard/projects/${slug}/keys/new` });
  assert.ok(browser.csrf, 'a dashboard page carries the CSRF token');
});
after(() => f.close());

/** The form's route with its parameters filled in. */
const pathOf = (form: DashboardForm, ids: Record<string, string>) =>
  `/dashboard${form.path.replace(/:(\w+)/g, (_m, name: string) => encodeURIComponent(ids[name] ?? 'none'))}`;

/** Posts `fields` (a repeated field once per value) with this browser's CSRF token. */
async function post<F extends DashboardForm>(form: F, fields: FormFields<F>, ids: Record<string, string> = {}) {
  const body = new URLSearchParams({ csrf: browser.csrf });
  for (const [name, value] of Object.entries(fields)) for (const v of ([] as string[]).concat(value)) body.append(name, v);
  clock.advance(61_000);
  const res = await fetch(f.url + pathOf(form, { slug, ws: workspace, ...ids }), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: browser.cookie },
    body,
    redirect: 'manual',
  });
  return { status: res.status, html: await res.text() };
}

const names = (field: string) => new RegExp(`The field (&quot;|")${field}(&quot;|")`);

test('a field sent twice, missing or of no allowed value is a 400 naming it, and nothing changes', async () => {
  const keysBefore = (await f.accounts.keys.listForProject(slug)).length;
  const cases: FormFields<typeof KEY_FORMS.create>[] = [
    { name: 'twice', level: ['VIEWER', 'ADMIN'] },
    { name: 'twice', expires: ['30d', 'never'] },
    { level: 'VIEWER' },
  ];
  for (const fields of cases) {
    const refused = await post(KEY_FORMS.create, fields);
    const field = Object.keys(fields).find((k) => Array.isArray(fields[k])) ?? 'name';
    assert.equal(refused.status, 400, JSON.stringify(fields));
    assert.match(refused.html, names(field), JSON.stringify(fields));
    assert.match(refused.html, /<form/, 'the form is shown again');
  }
  assert.equal((await f.accounts.keys.listForProject(slug)).length, keysBefore, 'no key made');

  const approve = await post(REQUEST_FORMS.approve, { level: ['ADMIN', 'VIEWER'] }, { id: requestId });
  assert.equal(approve.status, 400);
  assert.match(approve.html, names('level'));
  assert.equal((await f.accounts.accessRequests.get(requestId))?.status, 'pending', 'the request is still pending');

  const role = await post(MEMBER_FORMS.role, { role: 'OWNER' }, { user: 'someone' });
  assert.equal(role.status, 400);
  assert.match(role.html, names('role'));
  assert.match(role.html, /must be one of VIEWER, EDITOR, ADMIN/);

  const limit = await post(KEY_FORMS.limit, {}, { id: keyId });
  assert.equal(limit.status, 400);
  assert.match(limit.html, names('rateLimit'));
});

test(`generated posts to every dashboard form: a redirect or a 4xx, never a 5xx (bodies past ${FORM_BODY_LIMIT} a 413)`, async () => {
  assert.ok(DASHBOARD_FORMS.length >= 20, 'every form of every section is declared');
  const text = fc.oneof(
    { arbitrary: fc.string({ maxLength: 40 }), weight: 4 },
    {
      arbitrary: fc.constantFrom(
        'VIEWER',
        'EDITOR',
        'ADMIN',
        'OWNER',
        'yes',
        '',
        '30d',
        'never',
        '0m',
        '1',
        '-1',
        '1e9',
        'null',
        '__proto__',
      ),
      weight: 4,
    },
    { arbitrary: fc.integer({ min: 1_000, max: 20_000 }).map((n) => 'x'.repeat(n)), weight: 1 },
  );
  const value = fc.oneof(text, fc.array(text, { minLength: 2, maxLength: 3 }));
  for (const form of DASHBOARD_FORMS) {
    const declared = Object.keys(form.schema.properties ?? {});
    const fields = fc.dictionary(fc.constantFrom(...declared, 'confirm', 'csrf', 'extra', 'constructor'), value, { maxKeys: 5 });
    const id = fc.constantFrom(keyId, requestId, 'none', '..', 'x'.repeat(300));
    await fc.assert(
      fc.asyncProperty(fields, id, async (sent, at) => {
        const { status, html } = await post(form, sent, { id: at, user: at, handle: at });
        const confirmStep = form.schema === CONFIRM_FIELDS && status === 200;
        assert.ok(status === 303 || (status >= 400 && status < 500) || confirmStep, `${form.path} ${status}: ${html.slice(0, 300)}`);
        assert.doesNotMatch(html, /\bat .+\.ts:\d+/, 'no stack trace on a page');
      }),
      { numRuns: 12 },
    );
  }
});
