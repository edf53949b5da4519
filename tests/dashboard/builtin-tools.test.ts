/**
 * Project > Tools in chromium (docs/approvals.md "The rule"): an admin sees svc's own tools with who
 * may call each, makes one wait for an approval with a select and Save, and the gateway then holds
 * a VIEWER key's call of it; the way-finding tools (level NONE) offer no rule. Checked with axe-core
 * (WCAG 2.2 AA's target size included) at desktop (1280×800) and phone (390×844) sizes; screenshots
 * under test-output/screenshots/dashboard-tools*.png.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { TOOL_POLICIES } from '@svc/policy';
import { eventually } from '@svc/testkit';
import { shot, signInOnPage, startStackAndBrowser, stopStackAndBrowser } from '../auth/browser.ts';
import { axeViolations } from '../support/axe.ts';
import { newPerson, PASSWORD, type Stack } from '../support/stack.ts';

const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };

let stack: Stack;
let browser: Browser;

before(async () => {
  ({ stack, browser } = await startStackAndBrowser());
});
after(() => stopStackAndBrowser(stack, browser));

const mainText = async (page: Page) => ((await page.locator('main').textContent()) ?? '').replace(/\s+/g, ' ');

async function checkPage(page: Page, name: string): Promise<void> {
  const violations = await axeViolations(page, { wcag22: true });
  await shot(page, `dashboard-${name}`);
  assert.deepEqual(violations, [], `axe on ${name}:\n${violations.join('\n')}`);
}

test("an admin makes one of svc's own tools wait for an approval, and the gateway holds its calls", async () => {
  const owner = await newPerson(stack, 'tools');
  const made = await stack.accounts.keys.createProjectKey({
    project: owner.slug,
    workspace: owner.user.workspace,
    name: 'reader',
    level: 'VIEWER',
  });
  const viewerKey = made.key;
  for (const [size, viewport] of Object.entries(SIZES)) {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    try {
      await page.goto(`${stack.authUrl}/dashboard`);
      await signInOnPage(page, owner.email, PASSWORD);
      await page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/tools`);
      await page.waitForSelector('main h1');
      const text = await mainText(page);
      for (const p of TOOL_POLICIES.filter((t) => t.endpoints.includes('project'))) assert.ok(text.includes(p.name), `${p.name} is listed`);
      assert.equal(await page.getByLabel('Which calls of svc_help wait for an approval').count(), 0, 'svc_help offers no rule');
      await checkPage(page, `tools-${size}`);
    } finally {
      await context.close();
    }
  }

  const context = await browser.newContext({ viewport: SIZES.desktop });
  const page = await context.newPage();
  try {
    await page.goto(`${stack.authUrl}/dashboard`);
    await signInOnPage(page, owner.email, PASSWORD);
    await page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/tools`);
    await page.getByLabel('Which calls of svc_search wait for an approval', { exact: true }).selectOption('below:EDITOR');
    await page.getByRole('button', { name: 'Save the approval rule of svc_search' }).click();
    await page.waitForSelector('.flash.ok');
    assert.match(await mainText(page), /approval rule saved/);
    assert.ok((await mainText(page)).includes(owner.email), 'the page says who set the rule');
    await eventually(async () => {
      const res = await fetch(`${stack.baseUrl}/mcp/${owner.slug}`, {
        method: 'POST',
        headers: { 'x-api-key': viewerKey, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_search', arguments: { query: 'plan' } } }),
      });
      const body = (await res.json()) as { error?: { data?: { gate?: string } } };
      assert.equal(body.error?.data?.gate, 'approval', JSON.stringify(body));
    }, 'the gateway to hold svc_search for a VIEWER key');
    await page.getByRole('link', { name: 'Approvals' }).click();
    assert.match(await mainText(page), /svc_search/);
    await checkPage(page, 'tools-held');
  } finally {
    await context.close();
  }
});
