/**
 * A key's controls in chromium (docs/dashboard.md "API keys"): disable and enable (the first click
 * changes nothing; the gateway refuses a disabled key within a second and accepts it again), a
 * note, an IP allow-list (a bad entry is a 400 naming it), the list's status filter and search,
 * and a roll's pair shown as "replaced by". Every page is checked with axe-core at desktop and
 * phone sizes, its screenshot kept under test-output/screenshots/dashboard-controls-*.png.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { waitFor } from '@svc/testkit';
import { openKeyAction, startStackAndBrowser, stopStackAndBrowser, shot, signInOnPage } from '../auth/browser.ts';
import { axeViolations } from '../support/axe.ts';
import { newPerson, PASSWORD, type Stack } from '../support/stack.ts';

let stack: Stack;
let browser: Browser;
let owner: Awaited<ReturnType<typeof newPerson>>;

const SIZES = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } };

before(async () => {
  ({ stack, browser } = await startStackAndBrowser());
  owner = await newPerson(stack, 'controls');
});
after(() => stopStackAndBrowser(stack, browser));

async function checkPage(page: Page, name: string): Promise<void> {
  const violations = await axeViolations(page);
  await shot(page, `dashboard-controls-${name}`);
  assert.deepEqual(violations, [], `axe on ${name}:\n${violations.join('\n')}`);
}

async function gatewayStatus(key: string): Promise<number> {
  const res = await fetch(`${stack.baseUrl}/mcp/${owner.slug}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_help', arguments: {} } }),
  });
  await res.body?.cancel();
  return res.status;
}

const newKey = (name: string) =>
  stack.accounts.keys.createProjectKey({
    project: owner.slug,
    workspace: owner.user.workspace,
    name,
    level: 'VIEWER',
    expiresInSeconds: 30 * 86_400,
  });

for (const [size, viewport] of Object.entries(SIZES)) {
  test(`a key's controls at ${size} size: disable and enable, note, allow-list, filter, replaced by`, async () => {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    try {
      const k = await newKey(`ops ${size}`);
      await page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/keys`);
      await signInOnPage(page, owner.email, PASSWORD);
      await page.waitForSelector('main h1');
      await page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/keys`);
      assert.equal(await gatewayStatus(k.key), 200);

      // Disable: the first click only says what it does.
      await openKeyAction(page, k.id, 'disable');
      assert.match((await page.textContent('main')) ?? '', /refused within a second, with an answer saying the key is disabled/);
      await checkPage(page, `disable-confirm-${size}`);
      assert.equal((await stack.accounts.keys.getById(k.id))?.disabled, false, 'the first step disables nothing');
      await Promise.all([page.waitForURL(/done=key-disabled/), page.click('main form button.danger')]);
      assert.equal((await stack.accounts.keys.getById(k.id))?.disabled, true);
      await waitFor(async () => (await gatewayStatus(k.key)) === 401, { timeout: 1000, message: 'the gateway to refuse the disabled key' });
      assert.equal(await page.locator(`tr:has-text("ops ${size}") td.status-disabled`).count(), 1);
      await checkPage(page, `disabled-${size}`);

      await openKeyAction(page, k.id, 'enable');
      await checkPage(page, `enable-confirm-${size}`);
      assert.equal((await stack.accounts.keys.getById(k.id))?.disabled, true, 'the first step enables nothing');
      await Promise.all([page.waitForURL(/done=key-enabled/), page.click('main form button[type=submit]')]);
      await waitFor(async () => (await gatewayStatus(k.key)) === 200, { timeout: 1000, message: 'the gateway to accept the enabled key' });

      // A note.
      await openKeyAction(page, k.id, 'note');
      await page.fill('#key-note', `held by the ${size} deploy job`);
      await checkPage(page, `note-${size}`);
      await Promise.all([page.waitForURL(/done=key-note-saved/), page.click('main form button[type=submit]')]);
      assert.match((await page.textContent(`tr:has-text("ops ${size}")`)) ?? '', new RegExp(`held by the ${size} deploy job`));

      // An allow-list: a bad entry is refused by name and nothing is saved; a good one applies.
      await openKeyAction(page, k.id, 'ips');
      await page.fill('#key-ips', '10.0.0.0/8\nnot-an-address');
      await page.click('main form button[type=submit]');
      await page.waitForSelector('#allowedIps-error');
      assert.match((await page.textContent('#allowedIps-error')) ?? '', /"not-an-address" is not an IPv4 or IPv6 address or CIDR block/);
      assert.equal(await page.getAttribute('#key-ips', 'aria-invalid'), 'true');
      await checkPage(page, `ips-error-${size}`);
      assert.deepEqual((await stack.accounts.keys.getById(k.id))?.allowedIps, []);
      await page.fill('#key-ips', '203.0.113.0/24\n2001:db8::/32');
      await Promise.all([page.waitForURL(/done=key-ips-saved/), page.click('main form button[type=submit]')]);
      await waitFor(async () => (await gatewayStatus(k.key)) === 403, { timeout: 1000, message: 'the allow-list to apply' });
      assert.match((await page.textContent(`tr:has-text("ops ${size}")`)) ?? '', /from 203\.0\.113\.0\/24, 2001:db8::\/32/);

      // A roll's pair: the old key says what replaced it.
      const rolled = await newKey(`rolled ${size}`);
      await page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/keys/${rolled.id}/roll`);
      await page.selectOption('#overlap', '1h');
      await Promise.all([page.waitForURL(/\/reveal\//), page.click('main form button[type=submit]')]);
      const fresh = (await stack.accounts.keys.getById(rolled.id))!.replacedBy;
      assert.ok(fresh, 'the roll recorded its replacement');
      await page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/keys?q=rolled+${size}`);
      const oldRow = page.locator('tr', { has: page.locator(`a[href$="/keys/${rolled.id}/roll"]`) });
      assert.match((await oldRow.textContent()) ?? '', /replaced by rolled/);
      assert.equal(await page.locator('td.status-expiring').count(), 0, 'no "expiring" pair after a roll');
      assert.equal(await page.locator(`a[href$="/keys/${fresh}/roll"]`).count(), 1);
      await checkPage(page, `replaced-${size}`);

      // The filter: revoked keys only when asked; a search; the filter is a link.
      await stack.accounts.keys.revoke(rolled.id);
      await page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/keys`);
      assert.equal(await page.locator(`a[href$="/keys/${rolled.id}/revoke"]`).count(), 0);
      assert.ok(!((await page.textContent('main table')) ?? '').includes(rolled.record.prefix), 'a revoked key is not listed by default');
      assert.equal(await page.isVisible('#key-status'), false, 'the filter waits, collapsed');
      await page.click('details.filters summary');
      await page.selectOption('#key-status', 'revoked');
      await Promise.all([page.waitForURL(/status=revoked/), page.click('form.filter button')]);
      assert.ok(((await page.textContent('main table')) ?? '').includes(rolled.record.prefix));
      assert.equal(await page.locator('tbody tr').count(), await page.locator('td.status-revoked').count(), 'only revoked keys');
      await checkPage(page, `filter-revoked-${size}`);
      await page.selectOption('#key-status', '');
      await page.fill('#key-search', `OPS ${size.toUpperCase()}`);
      await Promise.all([page.waitForURL(/q=OPS/), page.click('form.filter button')]);
      assert.equal(await page.locator('tbody tr').count(), 1);
      await page.fill('#key-search', 'nothing is called this');
      await Promise.all([page.waitForURL(/q=nothing/), page.click('form.filter button')]);
      assert.match((await page.textContent('main')) ?? '', /No keys match\./);
      await checkPage(page, `filter-empty-${size}`);
    } finally {
      await context.close();
    }
  });
}
