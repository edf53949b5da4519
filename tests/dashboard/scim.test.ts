/**
 * Workspace > SCIM provisioning in chromium (docs/dashboard.md, docs/auth-service.md "SCIM
 * provisioning"): the owner makes a token and sees it once (a reload shows it is gone), the token
 * works at the tenant URL the page shows, and revoking it after a confirmation ends it; another
 * person gets no page. Checked with axe-core at desktop and phone sizes; screenshots under
 * test-output/screenshots/dashboard-scim*.png.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { shot, signInOnPage, startStackAndBrowser, stopStackAndBrowser } from '../auth/browser.ts';
import { axeViolations } from '../support/axe.ts';
import { newPerson, PASSWORD, type Stack } from '../support/stack.ts';

let stack: Stack;
let browser: Browser;

before(async () => {
  ({ stack, browser } = await startStackAndBrowser());
});
after(() => stopStackAndBrowser(stack, browser));

async function checkPage(page: Page, name: string): Promise<void> {
  const violations = await axeViolations(page);
  await shot(page, `dashboard-${name}`);
  assert.deepEqual(violations, [], `axe on ${name}:\n${violations.join('\n')}`);
}

async function signedIn(email: string, viewport = { width: 1280, height: 900 }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(`${stack.authUrl}/dashboard`);
  await signInOnPage(page, email, PASSWORD);
  await page.waitForSelector('main h1');
  return { context, page };
}

const status = async (url: string, token: string) =>
  (await fetch(`${url}/ServiceProviderConfig`, { headers: { authorization: `Bearer ${token}` } })).status;

test('the owner makes a SCIM token, sees it once, it works at the tenant URL shown, and revoking it after confirming ends it', async () => {
  const owner = await newPerson(stack, 'dash-scim');
  const ws = owner.user.workspace;
  for (const viewport of [
    { width: 1280, height: 900 },
    { width: 390, height: 844 },
  ]) {
    const { context, page } = await signedIn(owner.email, viewport);
    const size = viewport.width < 500 ? '-phone' : '';
    try {
      await page.goto(`${stack.authUrl}/dashboard/workspaces/${ws}/scim`);
      assert.equal(await page.locator('main h1').textContent(), 'SCIM provisioning');
      const endpoint = (await page.locator('#scim-endpoint').textContent()) ?? '';
      assert.equal(endpoint, `${stack.authUrl}/scim/v2/${ws}`);
      await checkPage(page, `scim-empty${size}`);
      await page.getByRole('button', { name: 'Make a SCIM token' }).click();
      const token = (await page.locator('#new-key').textContent()) ?? '';
      assert.match(token, /^svc-scim-/);
      await checkPage(page, `scim-token${size}`);
      assert.equal(await status(endpoint, token), 200, 'the token works at the tenant URL');
      await page.reload();
      await page.waitForSelector('#new-key-gone');
      assert.doesNotMatch(await page.content(), new RegExp(token.slice(13)), 'the token is shown once');

      await page.goto(`${stack.authUrl}/dashboard/workspaces/${ws}/scim`);
      await page.getByRole('button', { name: 'Revoke' }).click();
      await checkPage(page, `scim-revoke${size}`);
      await page.getByRole('button', { name: 'Revoke token' }).click();
      await page.waitForSelector('.flash.ok');
      assert.equal(await status(endpoint, token), 401, 'the revoked token is refused');
      assert.equal(await page.locator('main table').count(), 0, 'no token is left');
    } finally {
      await context.close();
    }
  }
  const actions = (await stack.accounts.audit.page(ws, { limit: 20 })).entries.map((e) => e.action);
  assert.deepEqual(
    [actions.filter((a) => a === 'scim.token_created').length, actions.filter((a) => a === 'scim.token_revoked').length],
    [2, 2],
  );
});

test('another person opens no SCIM page of the workspace', async () => {
  const owner = await newPerson(stack, 'dash-scim-o');
  const other = await newPerson(stack, 'dash-scim-x');
  const { context, page } = await signedIn(other.email);
  try {
    const res = await page.goto(`${stack.authUrl}/dashboard/workspaces/${owner.user.workspace}/scim`);
    assert.equal(res?.status(), 403);
    assert.equal(await page.locator('#scim-endpoint').count(), 0);
  } finally {
    await context.close();
  }
});
