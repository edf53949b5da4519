/**
 * Workspace > Service accounts > Workload identity in chromium (docs/dashboard.md,
 * docs/workload-identity.md): the owner follows the link from the service accounts page, is told
 * what is wrong with a rule too broad, trusts GitHub Actions for a repository, reads the exchange
 * to run in CI, and removes the issuer after a confirmation. Checked with axe-core; screenshots
 * under test-output/screenshots/dashboard-workload-issuers*.png.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { shot, signInOnPage, startStackAndBrowser, stopStackAndBrowser } from '../auth/browser.ts';
import { axeViolations } from '../support/axe.ts';
import { newPerson, PASSWORD, type Stack } from '../support/stack.ts';

let stack: Stack;
let browser: Browser;
let owner: Awaited<ReturnType<typeof newPerson>>;

before(async () => {
  ({ stack, browser } = await startStackAndBrowser());
  owner = await newPerson(stack, 'dash-wl');
});
after(() => stopStackAndBrowser(stack, browser));

async function checkPage(page: Page, name: string): Promise<void> {
  const violations = await axeViolations(page);
  await shot(page, `dashboard-${name}`);
  assert.deepEqual(violations, [], `axe on ${name}:\n${violations.join('\n')}`);
}

test('the owner trusts GitHub Actions for a repository, reads the exchange, and removes the issuer after confirming', async () => {
  const { bot } = await stack.accounts.bots.create({ workspace: owner.user.workspace, name: 'ci-runner' });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  try {
    await page.goto(`${stack.authUrl}/dashboard`);
    await signInOnPage(page, owner.email, PASSWORD);
    await page.waitForSelector('main h1');
    await page.goto(`${stack.authUrl}/dashboard/workspaces/${owner.user.workspace}/service-accounts`);
    await page.getByRole('link', { name: 'Workload identity' }).click();
    assert.equal(await page.locator('main h1').textContent(), 'Workload identity');
    assert.match((await page.locator('main').textContent()) ?? '', /No workload issuers yet/);
    await checkPage(page, 'workload-issuers-empty');

    await page.getByLabel(/^Rules, one per line/).fill(`${bot.id}=workflow:deploy`);
    await page.getByRole('button', { name: 'Trust this issuer' }).click();
    assert.match((await page.locator('main').textContent()) ?? '', /must pin the owner/);
    assert.deepEqual(await stack.accounts.workloadIssuers.list(owner.user.workspace), []);

    await page.goBack();
    await page
      .getByLabel(/^Rules, one per line/)
      .fill(`${bot.id}=repository:acme/app,ref:refs/heads/main\n${bot.id}=repository:acme/tools`);
    await page.getByRole('button', { name: 'Trust this issuer' }).click();
    await page.waitForSelector('.flash.ok');
    const main = (await page.locator('main').textContent()) ?? '';
    assert.match(main, /https:\/\/token\.actions\.githubusercontent\.com/);
    assert.match(main, new RegExp(`${bot.id}=repository:acme/app,ref:refs/heads/main ?\\(ci-runner\\)`));
    assert.match((await page.locator('#exchange-snippet').textContent()) ?? '', /client_id=svc-workload/);
    const [issuer] = await stack.accounts.workloadIssuers.list(owner.user.workspace);
    assert.equal(issuer?.rules.length, 2);
    await checkPage(page, 'workload-issuers-added');

    await page.getByRole('button', { name: 'Remove' }).click();
    assert.match((await page.locator('main').textContent()) ?? '', /get no new token at once/);
    assert.equal((await stack.accounts.workloadIssuers.list(owner.user.workspace)).length, 1, 'the confirmation page changed nothing');
    await page.getByRole('button', { name: 'Remove' }).click();
    await page.waitForSelector('.flash.ok');
    assert.deepEqual(await stack.accounts.workloadIssuers.list(owner.user.workspace), []);
  } finally {
    await context.close();
  }
});
