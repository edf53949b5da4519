/**
 * The dashboard in chromium (docs/dashboard.md): Project > API Keys (create with the keyboard
 * alone, the key shown once and working at the gateway, revoke with confirmation, roll with an
 * overlap), access requests (the badge, approval at a chosen level with the keyboard alone),
 * members, service accounts, usage and account; what each role may do; forms posted for another
 * project's objects; CSRF and sign-in. Every page is checked with axe-core at desktop and phone
 * sizes, and its screenshot kept under test-output/screenshots/dashboard-*.png.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { AUDIT_EXPORT_END, oidcRecordKey } from '@svc/accounts';
import { MANAGEMENT_PER_MINUTE } from '@svc/management';
import { waitFor } from '@svc/testkit';
import { runDeviceFlow, openKeyAction, startStackAndBrowser, stopStackAndBrowser, shot, signInOnPage } from '../auth/browser.ts';
import { mcpCall } from '../auth/gateway-call.ts';
import { REVEAL_TTL_SECONDS } from '../../services/auth-service/src/dashboard/reveal.ts';
import { axeViolations } from '../support/axe.ts';
import { newPerson, PASSWORD, type Stack } from '../support/stack.ts';

let stack: Stack;
let browser: Browser;
let owner: Awaited<ReturnType<typeof newPerson>>;

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

before(async () => {
  ({ stack, browser } = await startStackAndBrowser());
  owner = await newPerson(stack, 'dash');
});
after(() => stopStackAndBrowser(stack, browser));

/** A browser context signed in as `email`, at `size`. */
async function signedIn(email: string, size = DESKTOP): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: size });
  const page = await context.newPage();
  // A store that did not answer in time is a 503 with Retry-After (docs/errors.md), as a busy test
  // machine can cause: asked again, a few times at most. Anything else must be the sign-in page.
  for (let tries = 1; ; tries++) {
    const res = await page.goto(`${stack.authUrl}/dashboard`);
    if (res?.status() !== 503 || tries === 3) break;
  }
  assert.match(page.url(), /\/signin\?return=%2Fdashboard/, 'the dashboard sends a stranger to sign in first');
  await signInOnPage(page, email, PASSWORD);
  await page.waitForSelector('main h1');
  return { context, page };
}

async function checkPage(page: Page, name: string): Promise<void> {
  const violations = await axeViolations(page);
  await shot(page, `dashboard-${name}`);
  assert.deepEqual(violations, [], `axe on ${name}:\n${violations.join('\n')}`);
}

async function gatewayStatus(key: string, slug = owner.slug): Promise<number> {
  const res = await fetch(`${stack.baseUrl}/mcp/${slug}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_help', arguments: {} } }),
  });
  await res.body?.cancel();
  return res.status;
}

/** The reveal page shows the key once, with focus on its box and outside any live region. */
async function assertRevealed(page: Page): Promise<string> {
  await page.waitForSelector('#new-key');
  assert.match(page.url(), /\/reveal\/[A-Za-z0-9_-]{22}$/, 'the key is on the page the POST redirected to');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'new-key-box', 'focus moves to the key');
  assert.equal(
    await page.locator('#new-key').evaluate((el) => el.closest('[role=status],[role=alert],[aria-live]') !== null),
    false,
    'not in a live region',
  );
  return ((await page.textContent('#new-key')) ?? '').trim();
}

/** A reveal page opened again says the key is gone, shows no key, and no key was made. */
async function assertGone(page: Page, key: string, keysBefore: () => Promise<number>, count: number, how: string): Promise<void> {
  await page.waitForSelector('#new-key-gone');
  assert.equal(await page.locator('#new-key').count(), 0, `${how}: no key shown`);
  assert.ok(!(await page.content()).includes(key), `${how}: the secret is not on the page`);
  assert.match((await page.textContent('#new-key-gone')) ?? '', /shown once and is gone/);
  assert.equal(await keysBefore(), count, `${how}: no second key made`);
}

/** Reload, Back then Forward on a reveal page: each lands on a page without the key, and no key is made. */
async function revisitReveal(page: Page, key: string, count: () => Promise<number>): Promise<void> {
  const before = await count();
  const at = page.url();
  await page.reload();
  await assertGone(page, key, count, before, 'reload');
  await page.goBack();
  assert.ok(!(await page.content()).includes(key), 'Back: the secret is not on the page');
  await page.goForward();
  assert.equal(page.url(), at);
  await assertGone(page, key, count, before, 'Forward');
}

/** This browser's CSRF token, read from a page with a form (the new-key page: the key list has no POST form). */
async function csrfOf(page: Page, slug: string): Promise<string> {
  await page.goto(`${stack.authUrl}/dashboard/projects/${slug}/keys/new`);
  return page.$eval('input[name=csrf]', (i) => (i as HTMLInputElement).value);
}

const projectKeyCount = async () => (await stack.accounts.keys.listForProject(owner.slug)).length;

test('Project > API Keys: create with the keyboard alone, shown once, works at the gateway; revoke with confirmation', async () => {
  const { context, page } = await signedIn(owner.email);
  try {
    assert.match(page.url(), new RegExp(`/dashboard/projects/${owner.slug}/keys$`), 'the dashboard opens on the first project');
    await checkPage(page, 'keys-empty');

    // Keyboard only: the primary "Create key" beside the title opens the form, its name field focused.
    await page.focus('main .title-row a.button');
    await Promise.all([page.waitForURL(/\/keys\/new$/), page.keyboard.press('Enter')]);
    await page.waitForFunction(() => document.activeElement?.id === 'key-name');
    await page.keyboard.type('ci deploy');
    await page.keyboard.press('Tab');
    await page.keyboard.press('End'); // last level: ADMIN
    await page.keyboard.press('Home'); // first: VIEWER
    await page.keyboard.press('ArrowDown'); // EDITOR
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await Promise.all([page.waitForLoadState('load'), page.keyboard.press('Enter')]);
    const key = await assertRevealed(page);
    assert.match(key, /^svc-[0-9A-Za-z]{28}$/);
    assert.match((await page.textContent('.secret')) ?? '', /you will not see it again/);
    await checkPage(page, 'keys-created');
    assert.equal(await gatewayStatus(key), 200, 'the new key works at once');
    await revisitReveal(page, key, projectKeyCount);
    await checkPage(page, 'keys-gone');

    // Listed by its prefix only, and never shown again.
    await page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/keys`);
    const listing = (await page.textContent('main')) ?? '';
    assert.ok(!listing.includes(key), 'the list never shows the key');
    assert.match(listing, /ci deploy\s*EDITOR\s*svc-/);
    const record = (await stack.accounts.keys.listForProject(owner.slug)).find((k) => k.name === 'ci deploy')!;
    assert.equal(record.level, 'EDITOR');
    assert.ok(record.expiresAt && Math.abs(record.expiresAt - Date.now() - 90 * 86_400_000) < 60_000, 'default expiry 90 days');

    await openKeyAction(page, record.id, 'revoke');
    await checkPage(page, 'keys-revoke-confirm');
    assert.equal((await stack.accounts.keys.getById(record.id))?.revoked, false, 'the first step revokes nothing');
    assert.equal(await gatewayStatus(key), 200);
    await Promise.all([page.waitForURL(/done=key-revoked/), page.click('button.danger')]);
    assert.match((await page.textContent('.flash')) ?? '', /Key revoked/);
    await waitFor(async () => (await gatewayStatus(key)) === 401, { timeout: 1000, message: 'the gateway to refuse the revoked key' });
  } finally {
    await context.close();
  }
});

test(`a new key waits for its reveal sealed, ${REVEAL_TTL_SECONDS} s at most, for this browser session only`, async () => {
  const mine = await signedIn(owner.email);
  const other = await signedIn(owner.email); // the same person in another browser
  try {
    const csrf = await csrfOf(mine.page, owner.slug);
    const res = await mine.page.request.post(`${stack.authUrl}/dashboard/projects/${owner.slug}/keys`, {
      form: { csrf, name: 'sealed', level: 'VIEWER', expires: '7d', rateLimit: '' },
      maxRedirects: 0,
    });
    assert.equal(res.status(), 303);
    const location = res.headers()['location'] ?? '';
    assert.match(location, /\/keys\/reveal\/[A-Za-z0-9_-]{22}$/);
    const stored = await stack.client.keys('svc:oidc:reveal:*');
    assert.equal(stored.length, 1);
    const ttl = await stack.client.ttl(stored[0]!);
    assert.ok(ttl > 0 && ttl <= REVEAL_TTL_SECONDS, `the reveal lives ${REVEAL_TTL_SECONDS} s at most (ttl ${ttl})`);
    // Another browser session finds nothing there, and does not spend it.
    await other.page.goto(`${stack.authUrl}${location}`);
    await other.page.waitForSelector('#new-key-gone');
    assert.equal(await stack.client.exists(stored[0]!), 1);
    await mine.page.goto(`${stack.authUrl}${location}`);
    const key = await assertRevealed(mine.page);
    assert.ok(!(await stack.client.get(stored[0]!)), 'read once (GETDEL)');
    assert.equal((await stack.accounts.keys.listForProject(owner.slug)).filter((k) => k.name === 'sealed').length, 1);
    assert.equal(await gatewayStatus(key), 200);
  } finally {
    await mine.context.close();
    await other.context.close();
  }
});

test('roll: a new key at once, the old one until the overlap ends', async () => {
  const issued = await stack.accounts.keys.createProjectKey({
    project: owner.slug,
    workspace: owner.user.workspace,
    level: 'VIEWER',
    name: 'rolled',
  });
  const { context, page } = await signedIn(owner.email);
  try {
    await page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/keys/${issued.id}/roll`);
    await checkPage(page, 'keys-roll');
    await page.selectOption('#overlap', '1h');
    await page.click('main form button[type=submit]');
    const fresh = await assertRevealed(page);
    assert.notEqual(fresh, issued.key);
    await revisitReveal(page, fresh, projectKeyCount);
    assert.equal(await gatewayStatus(fresh), 200);
    assert.equal(await gatewayStatus(issued.key), 200, 'the old key works during the overlap');
    const old = await stack.accounts.keys.getById(issued.id);
    assert.ok(old?.expiresAt && Math.abs(old.expiresAt - Date.now() - 3600_000) < 60_000, 'the old key ends with the overlap');
    // No overlap: the old key stops at once.
    const second = (await stack.accounts.keys.listForProject(owner.slug)).find((k) => k.name === 'rolled' && k.id !== issued.id)!;
    await page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/keys/${second.id}/roll`);
    await page.selectOption('#overlap', '0m');
    await Promise.all([page.waitForSelector('#new-key'), page.click('main form button[type=submit]')]);
    await waitFor(async () => (await gatewayStatus(fresh)) === 401, { timeout: 1000, message: 'the rolled key without overlap to stop' });
  } finally {
    await context.close();
  }
});

test("a key's own rate limit set on its page (a wrong value told at the field), then usage per key and per tool as a chart and a table", async () => {
  const issued = await stack.accounts.keys.createProjectKey({
    project: owner.slug,
    workspace: owner.user.workspace,
    level: 'VIEWER',
    name: 'nightly ci',
  });
  const { context, page } = await signedIn(owner.email);
  try {
    await page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/keys`);
    await openKeyAction(page, issued.id, 'limit');
    await page.fill('#key-rate-limit', '0');
    // The browser's own check would stop 0 (min=1): submit without it to see the server's answer.
    await page.$eval('main form', (f) => f.setAttribute('novalidate', ''));
    await page.click('main form button[type=submit]');
    await page.waitForSelector('#rateLimit-error');
    assert.match((await page.textContent('#rateLimit-error')) ?? '', /whole number of requests per minute from 1 to \d+/);
    assert.equal(await page.getAttribute('#key-rate-limit', 'aria-invalid'), 'true');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'key-rate-limit', 'focus on the field that was wrong');
    await checkPage(page, 'keys-limit-error');
    await page.fill('#key-rate-limit', '2');
    await Promise.all([page.waitForURL(/done=key-limit-changed/), page.click('main form button[type=submit]')]);
    assert.match((await page.textContent('main')) ?? '', /nightly ci\s*VIEWER\s*svc-.*2\/min/);
    await waitFor(async () => (await stack.accounts.keys.getById(issued.id))?.rateLimit === 2, { timeout: 1000 });
    assert.deepEqual([await gatewayStatus(issued.key), await gatewayStatus(issued.key), await gatewayStatus(issued.key)], [200, 200, 429]);

    await page.goto(`${stack.authUrl}/dashboard/workspaces/${owner.user.workspace}/usage`);
    const byKey = (await page.textContent('div[aria-label="Requests by key"]')) ?? '';
    assert.match(byKey, /nightly ci\s*svc-\S+\s*[a-z0-9-]+\s*2/, 'two admitted requests; the refused one is not counted');
    assert.match((await page.textContent('main')) ?? '', /svc_help/);
    const chart = (await page.textContent('svg[aria-labelledby="chart-Requests-by-key-this-month"] title')) ?? '';
    assert.match(chart, /nightly ci 2/, 'the chart says its numbers too');
    await checkPage(page, 'usage-with-traffic');
  } finally {
    await context.close();
  }
});

test('access requests: the badge counts them; approve at a chosen level with the keyboard alone', async () => {
  const asker = await newPerson(stack, 'asker');
  await stack.accounts.accessRequests.create(
    {
      project: owner.slug,
      requester: { type: 'user', id: asker.user.id, label: asker.email },
      requestedLevel: 'EDITOR',
      reason: 'I write the docs',
    },
    { source: '192.0.2.1', requestId: 'test' },
  );
  const { context, page } = await signedIn(owner.email, PHONE);
  try {
    assert.equal((await page.textContent('nav .badge'))?.trim(), '1');
    await page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/requests`);
    await checkPage(page, 'requests-phone');
    assert.match((await page.textContent('main')) ?? '', new RegExp(`${asker.email}\\s*EDITOR\\s*I write the docs`));
    await page.focus('main select[name=level]');
    await page.keyboard.press('Home'); // VIEWER: less than asked
    await page.keyboard.press('Tab');
    await Promise.all([page.waitForURL(/done=request-approved/), page.keyboard.press('Enter')]);
    const project = (await stack.accounts.workspaces.getProject(owner.slug))!;
    assert.equal(await stack.accounts.workspaces.roleOf(asker.user.id, project), 'VIEWER', 'approved at the level chosen');
    assert.equal(await page.locator('nav .badge').count(), 0, 'no badge once none is pending');
    // The "Decided" list shows the level granted and who decided (docs/management.md "Access request lifecycle").
    const decided = (await page.textContent('[role=region][aria-label="Decided access requests"]')) ?? '';
    assert.match(decided, new RegExp(`${asker.email}[\\s\\S]*approved\\s*VIEWER\\s*${owner.email.replace(/[.]/g, '\\.')}`));
    await checkPage(page, 'requests-decided-phone');
  } finally {
    await context.close();
  }
  // The requester learns the outcome on their account page: what they asked, the status, the level granted.
  const mine = await signedIn(asker.email, PHONE);
  try {
    await mine.page.goto(`${stack.authUrl}/dashboard/account`);
    const own = (await mine.page.textContent('[role=region][aria-label="Your access requests"]')) ?? '';
    assert.match(own, new RegExp(`${owner.slug}\\s*EDITOR\\s*approved\\s*VIEWER`), own);
    await checkPage(mine.page, 'account-requests-phone');
  } finally {
    await mine.context.close();
  }
});

test('roles: an EDITOR sees keys but cannot create ADMIN keys; a VIEWER cannot manage; members see no requests', async () => {
  const editor = await newPerson(stack, 'editor');
  const viewer = await newPerson(stack, 'viewer');
  await stack.accounts.workspaces.setRole(owner.slug, editor.user.id, 'EDITOR');
  await stack.accounts.workspaces.setRole(owner.slug, viewer.user.id, 'VIEWER');
  const e = await signedIn(editor.email);
  try {
    await e.page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/keys/new`);
    const levels = await e.page.$$eval('#key-level option', (os) => os.map((o) => (o as HTMLOptionElement).value));
    assert.deepEqual(levels, ['VIEWER', 'EDITOR']);
    // A forged form asking for ADMIN is refused with the reason, tied to the field.
    await e.page.$eval('#key-level', (s) => ((s as HTMLSelectElement).innerHTML += '<option value="ADMIN">ADMIN</option>'));
    await e.page.fill('#key-name', 'sneaky');
    await e.page.selectOption('#key-level', 'ADMIN');
    await e.page.click('main form button[type=submit]:has-text("Create API key")');
    await e.page.waitForSelector('#level-error');
    assert.match((await e.page.textContent('#level-error')) ?? '', /Your role \(EDITOR\) can create VIEWER or EDITOR keys/);
    assert.equal(await e.page.getAttribute('#key-level', 'aria-invalid'), 'true');
    await checkPage(e.page, 'keys-editor-refused');
    const res = await e.page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/requests`);
    assert.equal(res?.status(), 403);
  } finally {
    await e.context.close();
  }
  const v = await signedIn(viewer.email);
  try {
    await v.page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/keys`);
    assert.equal(await v.page.locator('main .title-row a.button').count(), 0, 'no Create key for a VIEWER');
    await v.page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/keys/new`);
    assert.equal(await v.page.locator('#key-name').count(), 0, 'no create form for a VIEWER');
    await v.page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/keys`);
    assert.equal(await v.page.locator('a[href$="/revoke"]').count(), 0, 'no revoke links for a VIEWER');
    await checkPage(v.page, 'keys-viewer');
  } finally {
    await v.context.close();
  }
});

test("another tenant's objects: forms posted for another project's key or project are refused as missing", async () => {
  const other = await newPerson(stack, 'other');
  const theirs = await stack.accounts.keys.createProjectKey({
    project: other.slug,
    workspace: other.user.workspace,
    level: 'ADMIN',
    name: 'theirs',
  });
  const { context, page } = await signedIn(owner.email);
  try {
    const csrf = await csrfOf(page, owner.slug);
    const post = (path: string, form: Record<string, string>) =>
      page.request.post(`${stack.authUrl}${path}`, { form: { csrf, ...form }, maxRedirects: 0 });
    // Their key through my project, and their project directly.
    assert.equal((await post(`/dashboard/projects/${owner.slug}/keys/${theirs.id}/revoke`, {})).status(), 404);
    assert.equal((await post(`/dashboard/projects/${other.slug}/keys/${theirs.id}/revoke`, {})).status(), 404);
    assert.equal((await post(`/dashboard/projects/${other.slug}/keys`, { name: 'x', level: 'ADMIN', expires: '30d' })).status(), 404);
    assert.equal((await post(`/dashboard/projects/${other.slug}/members`, { email: owner.email, role: 'ADMIN' })).status(), 404);
    assert.equal((await post(`/dashboard/workspaces/${other.user.workspace}/service-accounts`, { name: 'b' })).status(), 403);
    assert.equal((await post(`/dashboard/projects/${owner.slug}/keys/${theirs.id}/limit`, { rateLimit: '1' })).status(), 404);
    assert.equal((await post(`/dashboard/projects/${other.slug}/keys/${theirs.id}/limit`, { rateLimit: '1' })).status(), 404);
    // Their sessions and apps are not mine to end: unknown handles and grants are missing.
    const grantKey = oidcRecordKey('Grant', 'grant-of-other');
    await stack.client.hset(grantKey, 'payload', JSON.stringify({ accountId: other.user.id, clientId: 'svc-mcp', iat: 1, resources: {} }));
    await stack.accounts.oauthGrants.index(other.user.id, 'grant-of-other', 3600);
    assert.equal((await post('/dashboard/account/apps/grant-of-other/revoke', {})).status(), 404);
    assert.equal(await stack.client.exists(grantKey), 1, 'their grant is untouched');
    assert.equal((await post('/dashboard/account/sessions/0123456789abcdef/end', {})).status(), 404);
    assert.equal((await stack.accounts.keys.getById(theirs.id))?.rateLimit, null, "their key's limit is untouched");
    assert.equal((await stack.accounts.keys.getById(theirs.id))?.revoked, false, 'their key is untouched');
    assert.equal(await gatewayStatus(theirs.key, other.slug), 200);
    // Without the CSRF token nothing happens either.
    const forged = await page.request.post(`${stack.authUrl}/dashboard/projects/${owner.slug}/keys`, {
      form: { name: 'x', level: 'VIEWER', expires: '30d' },
    });
    assert.equal(forged.status(), 403);
  } finally {
    await context.close();
  }
});

test('members, service accounts, usage, account, new project: every page at both sizes passes axe', async () => {
  const member = await newPerson(stack, 'member');
  for (const size of [DESKTOP, PHONE]) {
    const tag = size === PHONE ? '-phone' : '';
    const { context, page } = await signedIn(owner.email, size);
    try {
      await page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/members`);
      if (size === DESKTOP) {
        await page.fill('#member-email', member.email);
        await page.selectOption('#member-role', 'EDITOR');
        await Promise.all([page.waitForURL(/done=member-added/), page.click('main form button[type=submit]:has-text("Add member")')]);
        const project = (await stack.accounts.workspaces.getProject(owner.slug))!;
        assert.equal(await stack.accounts.workspaces.roleOf(member.user.id, project), 'EDITOR');
        // No confirmed account: an invitation, listed and cancellable (docs/management.md "Invitations").
        await page.fill('#member-email', 'nobody@example.com');
        await Promise.all([page.waitForURL(/done=member-invited/), page.click('main form button[type=submit]:has-text("Add member")')]);
        assert.match((await page.textContent('main')) ?? '', /Pending invitations[\s\S]*nobody@example\.com/);
        await checkPage(page, `members-invited${tag}`);
        // Revoking asks first (the rest of the flow is in invitations.test.ts).
        await page.click('main form[action*="/invitations/"] button');
        await Promise.all([page.waitForURL(/done=invitation-cancelled/), page.click('main form button.danger')]);
        assert.doesNotMatch((await page.textContent('main')) ?? '', /nobody@example\.com/);
      }
      await checkPage(page, `members${tag}`);
      // Removing a member: the first click only asks, saying what it ends.
      await page.click(`tr:has-text("${member.email}") button:has-text("Remove")`);
      assert.match((await page.textContent('main')) ?? '', /OAuth apps they authorized/);
      await checkPage(page, `members-remove-confirm${tag}`);
      const project = (await stack.accounts.workspaces.getProject(owner.slug))!;
      assert.equal(await stack.accounts.workspaces.roleOf(member.user.id, project), 'EDITOR', 'the first step removes nobody');

      const bots = `${stack.authUrl}/dashboard/workspaces/${owner.user.workspace}/service-accounts`;
      const ws = owner.user.workspace;
      const botCount = async () => (await stack.accounts.bots.listForWorkspace(ws)).length;
      await page.goto(bots);
      if (size === DESKTOP) {
        await page.fill('#bot-name', 'nightly build');
        await page.click('main form button[type=submit]:has-text("Create")');
        const botKey = await assertRevealed(page);
        assert.match(botKey, /^svc-bot-/);
        await checkPage(page, `service-accounts-created`);
        await revisitReveal(page, botKey, botCount);
      }
      // The desktop pass revoked its service account for good: the phone pass confirms on its own.
      const botName = size === DESKTOP ? 'nightly build' : 'nightly build phone';
      if (size !== DESKTOP) {
        await stack.accounts.bots.create({ workspace: ws, name: botName });
        await page.reload();
      }
      await checkPage(page, `service-accounts${tag}`);
      const bot = (await stack.accounts.bots.listForWorkspace(ws)).find((b) => b.name === botName)!;
      const keyActive = async (id: string) => (await stack.accounts.keys.getById(id))?.revoked === false;

      // A new key: the first click only asks; the confirming one reveals the new key once, and the
      // old one works for the overlap chosen (24 hours unless changed), as a project key's roll.
      await page.click('tr:has-text("nightly build") button:has-text("New key")');
      assert.match((await page.textContent('main')) ?? '', /keeps working for the overlap you choose/);
      await checkPage(page, `service-accounts-rotate-confirm${tag}`);
      assert.equal((await stack.accounts.bots.get(bot.id))?.keyId, bot.keyId, 'the first step issues no key');
      if (size === DESKTOP) {
        assert.ok(await keyActive(bot.keyId), 'the first step leaves the old key working');
        await page.click('main form button.danger');
        const rotated = await assertRevealed(page);
        assert.match((await page.textContent('main')) ?? '', /The key it replaces works until/);
        assert.ok(await keyActive(bot.keyId), 'the old key works during the overlap');
        const oldEnds = (await stack.accounts.keys.getById(bot.keyId))!.expiresAt!;
        assert.ok(Math.abs(oldEnds - Date.now() - 86_400_000) < 120_000, 'the old key ends with the 24-hour overlap');
        await revisitReveal(page, rotated, botCount);
        assert.equal((await stack.accounts.bots.get(bot.id))?.keyId !== bot.keyId, true);
      }

      // Revoking: the first click only asks; the confirming one revokes.
      await page.goto(bots);
      await page.click('tr:has-text("nightly build") button:has-text("Revoke")');
      assert.match((await page.textContent('main')) ?? '', /cannot be undone/);
      await checkPage(page, `service-accounts-revoke-confirm${tag}`);
      const current = (await stack.accounts.bots.get(bot.id))!;
      if (size === DESKTOP) {
        assert.ok(await keyActive(current.keyId), 'the first step revokes nothing');
        await Promise.all([page.waitForURL(/done=bot-revoked/), page.click('main form button.danger')]);
        assert.ok(!(await keyActive(current.keyId)), 'the confirmed step revokes');
        assert.ok(!(await keyActive(bot.keyId)), 'the key still in its overlap is revoked with it');
        // A revoked service account stays revoked: no new key is offered, and asking anyway is refused.
        assert.equal(await page.locator('tr:has-text("nightly build") button:has-text("New key")').count(), 0);
        const asked = await page.request.get(`${bots}/${encodeURIComponent(bot.id)}/rotate`);
        assert.equal(asked.status(), 409);
      }

      await page.goto(`${stack.authUrl}/dashboard/workspaces/${owner.user.workspace}/usage`);
      assert.match((await page.textContent('main')) ?? '', /Requests this minute/);
      await checkPage(page, `usage${tag}`);
      await page.goto(`${stack.authUrl}/dashboard/account`);
      assert.match((await page.textContent('main')) ?? '', new RegExp(`Signed in as ${owner.email}`));
      await checkPage(page, `account${tag}`);
      await page.goto(`${stack.authUrl}/dashboard/projects/new`);
      await checkPage(page, `new-project${tag}`);
    } finally {
      await context.close();
    }
  }
});

test('a new project from the browser, named by the person; the dashboard opens it', async () => {
  const fresh = await newPerson(stack, 'fresh');
  const { context, page } = await signedIn(fresh.email);
  try {
    await page.goto(`${stack.authUrl}/dashboard/projects/new`);
    await page.fill('#project-name', 'Team Handbook');
    await Promise.all([
      page.waitForURL(/\/dashboard\/projects\/team-handbook[-0-9]*\/keys\?done=project-created/),
      page.click('main form button[type=submit]'),
    ]);
    assert.match((await page.textContent('.flash')) ?? '', /Project created/);
    assert.ok((await stack.accounts.workspaces.projectsOf(fresh.user.workspace)).some((s) => s.startsWith('team-handbook')));
  } finally {
    await context.close();
  }
});

test('Workspace > Audit log: what the tests above did, newest first, filtered, exported as JSON lines, no secret', async () => {
  const { context, page } = await signedIn(owner.email);
  try {
    await page.goto(`${stack.authUrl}/dashboard/workspaces/${owner.user.workspace}/audit`);
    await checkPage(page, 'audit');
    const text = (await page.textContent('main')) ?? '';
    for (const action of ['key.created', 'key.revoked', 'key.rolled', 'access_request.approved', 'member.added', 'service_account.created'])
      assert.match(text, new RegExp(action.replace('.', '\\.')), action);
    assert.match(text, new RegExp(owner.email));
    // Through what each change was made: these were made on the dashboard's pages.
    const through = await page.$$eval('main tbody tr td:nth-child(3)', (tds) => tds.map((t) => t.textContent?.trim()));
    assert.ok(through.includes('dashboard'), through.join(','));
    await page.selectOption('#audit-action', 'key.revoked');
    await Promise.all([page.waitForURL(/action=key\.revoked/), page.click('main form button[type=submit]')]);
    const actions = await page.$$eval('main tbody tr td:nth-child(4)', (tds) => tds.map((t) => t.textContent?.trim()));
    assert.ok(actions.length > 0 && actions.every((a) => a === 'key.revoked'), actions.join(','));

    const exported = await page.request.get(`${stack.authUrl}/dashboard/workspaces/${owner.user.workspace}/audit/export`);
    assert.equal(exported.status(), 200);
    assert.match(exported.headers()['content-type'] ?? '', /application\/x-ndjson/);
    const all = (await exported.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { action: string; actor: string; at: number });
    assert.deepEqual(all.at(-1), { [AUDIT_EXPORT_END]: true, entries: all.length - 1 }, 'a complete export ends with its closing line');
    const lines = all.slice(0, -1);
    assert.ok(lines.length >= 6);
    assert.ok(
      lines.every((l, i) => i === 0 || l.at >= lines[i - 1]!.at),
      'oldest first',
    );
    assert.doesNotMatch(await exported.text(), /svc-[0-9A-Za-z]{28}|svc-bot-[0-9A-Za-z]{20}/, 'no key in the log');

    const stranger = await newPerson(stack, 'stranger');
    const s = await signedIn(stranger.email);
    try {
      const refused = await s.page.goto(`${stack.authUrl}/dashboard/workspaces/${owner.user.workspace}/audit`);
      assert.equal(refused?.status(), 403, "another workspace's log is not theirs to read");
    } finally {
      await s.context.close();
    }
  } finally {
    await context.close();
  }
});

test('Audit log: a cursor or action the page never gave is a 400 page saying so, not an error', async () => {
  const { context, page } = await signedIn(owner.email);
  try {
    const base = `${stack.authUrl}/dashboard/workspaces/${owner.user.workspace}/audit`;
    for (const [query, said] of [
      ['cursor=abc', /cursor is not one this log gave/],
      ['cursor=99999999999999999999-0', /cursor is not one this log gave/],
      ['action=key.stolen', /action must be one of/],
    ] as const) {
      const res = await page.goto(`${base}?${query}`);
      assert.equal(res?.status(), 400, query);
      assert.match((await page.textContent('main [role=alert]')) ?? '', said, query);
    }
    await checkPage(page, 'audit-bad-cursor');
  } finally {
    await context.close();
  }
});

test(`the management bucket: the dashboard's changes and the API share ${MANAGEMENT_PER_MINUTE} a minute; past it a 429 page with Retry-After`, async () => {
  const me = await newPerson(stack, 'bucket');
  const personal = (await stack.accounts.keys.createUserKey({ userId: me.user.id })).key;
  const { context, page } = await signedIn(me.email);
  try {
    // The count is per minute: start early enough in one that all of it lands there.
    await waitFor(() => Date.now() % 60_000 < 40_000, { timeout: 25_000, interval: 250, message: 'an early moment in a minute' });
    const csrf = await csrfOf(page, me.slug);
    const endOthers = () =>
      page.request.post(`${stack.authUrl}/dashboard/account/sessions/end-others`, { form: { csrf }, maxRedirects: 0 });
    const api = await Promise.all(
      Array.from({ length: MANAGEMENT_PER_MINUTE - 2 }, () =>
        fetch(`${stack.baseUrl}/api/v1/projects/${me.slug}/members`, { headers: { 'x-api-key': personal } }).then((r) => r.status),
      ),
    );
    assert.deepEqual(new Set(api), new Set([200]));
    assert.equal((await endOthers()).status(), 303, `request ${MANAGEMENT_PER_MINUTE - 1}`);
    assert.equal((await endOthers()).status(), 303, `request ${MANAGEMENT_PER_MINUTE}`);
    const refused = await endOthers();
    assert.equal(refused.status(), 429, `request ${MANAGEMENT_PER_MINUTE + 1}`);
    assert.ok(Number(refused.headers()['retry-after']) >= 1, 'Retry-After');
    assert.match(await refused.text(), /Too many changes in a minute/);
    const rest = await fetch(`${stack.baseUrl}/api/v1/projects/${me.slug}/members`, { headers: { 'x-api-key': personal } });
    assert.equal(rest.status, 429, 'the API is refused too: one bucket');
    const sessionEntries = (await stack.accounts.audit.page(me.user.workspace, { action: 'session.ended' })).entries;
    assert.equal(sessionEntries.length, 2, 'the refused change wrote no audit entry');
  } finally {
    await context.close();
  }
});

test('Account > Change password: the current one is required, the policy is told at the field, then it changes', async () => {
  const me = await newPerson(stack, 'passwd');
  const { context, page } = await signedIn(me.email, PHONE);
  try {
    await page.goto(`${stack.authUrl}/dashboard/account`);
    await page.click('a[href="/dashboard/account/password"]');
    await page.fill('#current', 'not my password at all');
    await page.fill('#password', 'a much better passphrase');
    await page.click('main form button[type=submit]');
    await page.waitForSelector('#current-error');
    assert.equal(await page.getAttribute('#current', 'aria-invalid'), 'true');
    await page.fill('#current', PASSWORD);
    await page.fill('#password', 'password1234');
    await page.click('main form button[type=submit]');
    await page.waitForSelector('#password-error');
    assert.match((await page.textContent('#password-error')) ?? '', /one of the most common/);
    await checkPage(page, 'change-password-refused-phone');
    await page.fill('#current', PASSWORD);
    await page.fill('#password', 'a much better passphrase');
    await Promise.all([page.waitForURL(/done=password-changed/), page.click('main form button[type=submit]')]);
    assert.ok(await stack.accounts.users.verifyPassword(me.email, 'a much better passphrase'));
    const log = await stack.accounts.audit.page(me.user.workspace);
    assert.ok(log.entries.some((e) => e.action === 'password.changed'));
  } finally {
    await context.close();
  }
});

/** An OAuth access token for `email` on `slug`, through the device flow approved in chromium. */
async function oauthToken(email: string, slug: string, name: string): Promise<string> {
  const { tokens } = await runDeviceFlow(browser, {
    authUrl: stack.authUrl,
    clientId: 'svc-mcp',
    email,
    password: PASSWORD,
    approval: { kind: 'select', project: slug },
    name,
  });
  return tokens.access_token;
}

test('Account: authorized apps revoked from the page; removing a member ends their app access to the project; sessions ended', async () => {
  const member = await newPerson(stack, 'apps');
  await stack.accounts.workspaces.setRole(owner.slug, member.user.id, 'EDITOR');
  const token = await oauthToken(member.email, owner.slug, 'dashboard-apps');
  assert.equal((await mcpCall(stack.baseUrl, owner.slug, token)).status, 200);
  const authorized = await stack.accounts.audit.page(owner.user.workspace, { action: 'oauth_app.authorized' });
  assert.ok(
    authorized.entries.some((e) => e.actor === member.email && e.target === 'client:svc-mcp' && e.detail?.['project'] === owner.slug),
    "the authorization is in the log of the project's workspace",
  );

  const first = await signedIn(member.email);
  const second = await signedIn(member.email, PHONE);
  try {
    // The gateway notes the grant's use a few seconds later, as it does a key's (docs/management.md "Authorized apps").
    await waitFor(async () => (await stack.accounts.oauthGrants.listForUser(member.user.id))[0]?.lastUsedAt, {
      timeout: 15_000,
      message: "the gateway to note the app's use",
    });
    await first.page.goto(`${stack.authUrl}/dashboard/account`);
    const apps = (await first.page.textContent('div[aria-label="Connected apps and agents"]')) ?? '';
    // The level approved on the consent page: EDITOR, preselected for the member's EDITOR role; used just now.
    assert.match(apps, new RegExp(`svc MCP client\\s*${owner.slug} \\(EDITOR\\)`), apps);
    assert.doesNotMatch(apps, /not yet/, `its last use is shown: ${apps}`);
    const sessions = (await first.page.textContent('div[aria-label="Sessions"]')) ?? '';
    assert.match(sessions, /this browser/);
    await checkPage(first.page, 'account-apps-sessions');

    await Promise.all([first.page.waitForURL(/done=app-revoked/), first.page.click('div[aria-label="Connected apps and agents"] button')]);
    await waitFor(async () => (await mcpCall(stack.baseUrl, owner.slug, token)).status === 401, {
      timeout: 1000,
      message: 'the revoked app to be refused',
    });
    assert.match((await first.page.textContent('main')) ?? '', /No apps authorized/);

    // The other browser (the phone) is listed without "this browser": end it from here (with the
    // device flow's browser, alike, it is in a group: "End every other session" ends both).
    const endOthers = first.page.locator('form[action$="/sessions/end-others"] button');
    await Promise.all([
      first.page.waitForURL(/done=session-ended|done=sessions-ended/),
      (await endOthers.count()) > 0
        ? endOthers.click()
        : first.page.click('div[aria-label="Sessions"] tr:not(:has-text("this browser")) button'),
    ]);
    await second.page.goto(`${stack.authUrl}/dashboard/account`);
    assert.match(second.page.url(), /\/signin\?return=/, 'the ended session is signed out');
    await first.page.goto(`${stack.authUrl}/dashboard/account`);
    assert.match(first.page.url(), /\/dashboard\/account$/, 'this browser stays signed in');

    // A member removed from the project loses what their apps reached through it.
    const again = await oauthToken(member.email, owner.slug, 'dashboard-apps-2');
    assert.equal((await mcpCall(stack.baseUrl, owner.slug, again)).status, 200);
    const admin = await signedIn(owner.email);
    try {
      await admin.page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/members`);
      await Promise.all([
        admin.page.waitForURL(/done=member-removed/),
        admin.page
          .click(`tr:has-text("${member.email}") button:has-text("Remove")`)
          .then(() => admin.page.click('main form button.danger')),
      ]);
    } finally {
      await admin.context.close();
    }
    await waitFor(async () => (await mcpCall(stack.baseUrl, owner.slug, again)).status === 401, {
      timeout: 1000,
      message: "the removed member's app to be refused",
    });
    const removed = await stack.accounts.audit.page(owner.user.workspace, { action: 'member.removed' });
    assert.ok(removed.entries.some((e) => e.target === `user:${member.email}` && e.detail?.['oauth_grants_revoked'] === '1'));
  } finally {
    await first.context.close();
    await second.context.close();
  }
});
