/**
 * Workspace > Service accounts > OAuth client in chromium (docs/dashboard.md, docs/auth-service.md
 * "Client credentials"): the owner pastes a public JWK Set, sees the client id, the token endpoint
 * and the snippets, is told what a bad paste is, and removes the keys after a confirmation.
 * Checked with axe-core; screenshots under test-output/screenshots/dashboard-client-keys*.png.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
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
  owner = await newPerson(stack, 'dash-cc');
});
after(() => stopStackAndBrowser(stack, browser));

async function checkPage(page: Page, name: string): Promise<void> {
  const violations = await axeViolations(page);
  await shot(page, `dashboard-${name}`);
  assert.deepEqual(violations, [], `axe on ${name}:\n${violations.join('\n')}`);
}

test('the owner pastes a public JWK Set, reads the client id and token endpoint, and removes the keys after confirming', async () => {
  const { bot } = await stack.accounts.bots.create({ workspace: owner.user.workspace, name: 'ci-runner' });
  await stack.accounts.bots.grant(bot.id, owner.slug, 'VIEWER');
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  try {
    await page.goto(`${stack.authUrl}/dashboard`);
    await signInOnPage(page, owner.email, PASSWORD);
    await page.waitForSelector('main h1');
    await page.goto(`${stack.authUrl}/dashboard/workspaces/${owner.user.workspace}/service-accounts`);
    await page.getByRole('link', { name: 'OAuth keys' }).click();
    assert.equal(await page.locator('main h1').textContent(), 'OAuth client of ci-runner');
    assert.equal(await page.locator('#client-id').textContent(), bot.id);
    assert.equal(await page.locator('#token-endpoint').textContent(), `${stack.authUrl}/api/oauth/token`);
    await checkPage(page, 'client-keys-empty');

    await page.getByLabel(/Public JWK Set/).fill('{"keys": [');
    await page.getByRole('button', { name: 'Save keys' }).click();
    assert.match((await page.locator('main').textContent()) ?? '', /The JWK Set is not JSON/);

    await page.goBack();
    const jwk = { ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }), kid: 'ci-1', alg: 'ES256' };
    await page.getByLabel(/Public JWK Set/).fill(JSON.stringify({ keys: [jwk] }));
    await page.getByRole('button', { name: 'Save keys' }).click();
    await page.waitForSelector('.flash.ok');
    assert.match((await page.locator('main').textContent()) ?? '', /ci-1 EC ES256/);
    assert.match(
      (await page.locator('#curl-snippet').textContent()) ?? '',
      new RegExp(`client_id=${bot.id} .*resource=${stack.baseUrl}/mcp/${owner.slug}`),
    );
    assert.match((await page.locator('#sdk-snippet').textContent()) ?? '', new RegExp(`clientId: '${bot.id}'`));
    assert.ok(await stack.accounts.serviceAccountClients.clientMetadata(bot.id), 'the client exists');
    await checkPage(page, 'client-keys-set');

    await page.getByRole('button', { name: 'Remove keys' }).click();
    assert.match((await page.locator('main').textContent()) ?? '', /stops getting tokens at once/);
    assert.ok(await stack.accounts.serviceAccountClients.getKeys(bot.id), 'the confirmation page changed nothing');
    await page.getByRole('button', { name: 'Remove keys' }).click();
    await page.waitForSelector('.flash.ok');
    assert.equal(await stack.accounts.serviceAccountClients.getKeys(bot.id), null);
    assert.match((await page.locator('main').textContent()) ?? '', /No keys yet/);
  } finally {
    await context.close();
  }
});
