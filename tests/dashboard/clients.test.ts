/**
 * Workspace > Clients in chromium (docs/management.md "Client governance", docs/dashboard.md): the
 * owner sets the policy (a line that is no rule is refused naming the list, the form kept), sees a
 * waiting application and approves, then denies it; each step audited. Checked with axe-core at
 * desktop and phone sizes; screenshots under test-output/screenshots/dashboard-clients*.png.
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

for (const [size, viewport] of [
  ['desktop', { width: 1280, height: 900 }],
  ['phone', { width: 390, height: 844 }],
] as const) {
  test(`${size}: the owner sets the client policy and decides on a waiting application`, async () => {
    const owner = await newPerson(stack, `dash-cl-${size}`);
    const ws = owner.user.workspace;
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    try {
      await page.goto(`${stack.authUrl}/dashboard/workspaces/${ws}/clients`);
      await signInOnPage(page, owner.email, PASSWORD);
      await page.waitForSelector('main h1');
      assert.equal(await page.locator('main h1').textContent(), 'Clients');
      await checkPage(page, `clients-${size}-empty`);

      await page.selectOption('#client-mode', 'approval');
      await page.fill('#client-allow', 'host vscode.dev\nclaude.ai');
      await page.getByRole('button', { name: 'Save policy' }).click();
      assert.match((await page.locator('#policy-error').textContent()) ?? '', /"claude\.ai" is not a rule/);
      assert.equal(await page.locator('#client-allow').getAttribute('aria-invalid'), 'true');
      await checkPage(page, `clients-${size}-refused`);

      await page.selectOption('#client-mode', 'approval');
      await page.fill('#client-allow', 'host vscode.dev');
      await page.fill('#client-deny', 'name Evil App');
      await page.getByRole('button', { name: 'Save policy' }).click();
      await page.waitForSelector('.flash');
      const policy = await stack.accounts.clientPolicies.get(ws);
      assert.deepEqual(
        [policy.mode, policy.allow, policy.deny],
        ['approval', [{ kind: 'host', value: 'vscode.dev' }], [{ kind: 'name', value: 'Evil App' }]],
      );

      const clientId = 'https://claude.ai/oauth/mcp-oauth-client-metadata';
      await stack.accounts.clientPolicies.fileWait(ws, { clientId, name: 'Claude' }, 'someone@example.com');
      await page.reload();
      assert.match((await page.locator('main table').textContent()) ?? '', /Claude.*pending/s);
      await checkPage(page, `clients-${size}-waiting`);
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.waitForSelector('.flash');
      assert.equal((await stack.accounts.clientPolicies.approval(ws, clientId))?.state, 'approved');
      await page.getByRole('button', { name: 'Deny' }).click();
      await page.waitForSelector('.flash');
      assert.equal((await stack.accounts.clientPolicies.approval(ws, clientId))?.state, 'denied');
      await checkPage(page, `clients-${size}-decided`);
      const actions = (await stack.accounts.audit.page(ws, {})).entries.map((e) => e.action);
      for (const action of ['client_policy.changed', 'client.approved', 'client.denied'] as const)
        assert.ok(actions.includes(action), action);
    } finally {
      await context.close();
    }
  });
}
