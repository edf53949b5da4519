/**
 * The dashboard's navigation, usage over time and audit filters in chromium (docs/dashboard.md):
 * the workspace and project switchers (arrow keys browse, only Go opens: WCAG 2.1 SC 3.2.2), the
 * person's own workspace from someone else's project, the usage chart with its table after real
 * traffic, and the audit log filtered by person and date with the export of that view. Each page
 * passes axe with WCAG 2.2 AA's target-size at desktop and phone sizes; screenshots under
 * test-output/screenshots/dashboard-nav-*.png.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { AUDIT_EXPORT_END } from '@svc/accounts';
import { startStackAndBrowser, stopStackAndBrowser, shot, signInOnPage } from '../auth/browser.ts';
import { axeViolations } from '../support/axe.ts';
import { newPerson, PASSWORD, type Stack } from '../support/stack.ts';

let stack: Stack;
let browser: Browser;
let owner: Awaited<ReturnType<typeof newPerson>>;
let member: Awaited<ReturnType<typeof newPerson>>;
let second: string;

const SIZES = [
  { tag: 'desktop', viewport: { width: 1280, height: 900 } },
  { tag: 'phone', viewport: { width: 390, height: 844 } },
];

before(async () => {
  ({ stack, browser } = await startStackAndBrowser());
  owner = await newPerson(stack, 'navo');
  member = await newPerson(stack, 'navm');
  second = `${owner.slug}-b`;
  await stack.accounts.workspaces.createProject({ slug: second, workspace: owner.user.workspace });
  await stack.accounts.workspaces.setRole(owner.slug, member.user.id, 'EDITOR');
  await stack.accounts.workspaces.setRole(second, member.user.id, 'VIEWER');
});
after(() => stopStackAndBrowser(stack, browser));

async function signedIn(email: string, viewport: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(`${stack.authUrl}/dashboard`);
  await signInOnPage(page, email, PASSWORD);
  await page.waitForSelector('main h1');
  return { context, page };
}

async function checkPage(page: Page, name: string): Promise<void> {
  const violations = await axeViolations(page, { wcag22: true });
  await shot(page, `dashboard-nav-${name}`);
  assert.deepEqual(violations, [], `axe on ${name}:\n${violations.join('\n')}`);
}

test('switchers: arrow keys browse without opening anything, Go opens; a member reaches their own workspace from any page', async () => {
  for (const { tag, viewport } of SIZES) {
    const { context, page } = await signedIn(member.email, viewport);
    try {
      const switches: string[] = [];
      page.on('request', (r) => {
        if (r.url().includes('/dashboard/switch')) switches.push(r.url());
      });
      await page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/keys`);
      await checkPage(page, `switchers-${tag}`);
      const workspaces = await page.locator('#switch-workspace option').allTextContents();
      assert.deepEqual(
        workspaces,
        [`${member.user.workspace} (yours)`, owner.user.workspace],
        'own workspace first, then where they are a member',
      );
      assert.deepEqual(await page.locator('#switch-project option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value)), [
        owner.slug,
        second,
      ]);
      // The Workspace sections are the person's own: they own no part of the other workspace.
      assert.equal(
        await page.locator('nav.sections a', { hasText: 'Usage' }).getAttribute('href'),
        `/dashboard/workspaces/${member.user.workspace}/usage`,
      );

      await page.focus('#switch-project');
      await page.keyboard.press('ArrowDown');
      assert.equal(await page.inputValue('#switch-project'), second, 'the arrow moved the choice');
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Go');
      assert.deepEqual(switches, [], 'an arrow key opened nothing');
      assert.match(page.url(), new RegExp(`/projects/${owner.slug}/keys$`));
      await Promise.all([page.waitForURL(new RegExp(`/projects/${second}/keys$`)), page.keyboard.press('Enter')]);
      assert.equal(switches.length, 1, 'only Go opened the project');

      await page.focus('#switch-workspace');
      await page.keyboard.press('Home');
      await page.keyboard.press('Tab');
      await Promise.all([page.waitForURL(new RegExp(`/projects/${member.slug}/keys$`)), page.keyboard.press('Enter')]);
      assert.deepEqual(
        await page.locator('#switch-project option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value)),
        [member.slug],
        "the project switcher lists the open workspace's projects",
      );

      // From a page of the other workspace, one link leads home.
      await page.goto(`${stack.authUrl}/dashboard/projects/${second}/members`);
      await Promise.all([page.waitForURL(new RegExp(`/projects/${member.slug}/keys$`)), page.click('header a.own')]);
      assert.equal(await page.locator('header a.own').count(), 0, 'no "Your workspace" link inside it');
      const stranger = await page.goto(`${stack.authUrl}/dashboard/switch?workspace=nobody-${tag}`);
      assert.equal(stranger?.status(), 404, 'a workspace that is not theirs');
    } finally {
      await context.close();
    }
  }
});

test('access requests: Approve and Deny meet the target size at both sizes', async () => {
  const asker = await newPerson(stack, 'navask');
  await stack.accounts.accessRequests.create(
    {
      project: owner.slug,
      requester: { type: 'user', id: asker.user.id, label: asker.email },
      requestedLevel: 'EDITOR',
      reason: 'to read the docs',
    },
    { source: '192.0.2.1', requestId: 'test' },
  );
  for (const { tag, viewport } of SIZES) {
    const { context, page } = await signedIn(owner.email, viewport);
    try {
      await page.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/requests`);
      await checkPage(page, `requests-${tag}`);
      for (const name of ['Approve', 'Deny']) {
        const box = (await page.getByRole('button', { name }).boundingBox())!;
        assert.ok(box.height >= 24 && box.width >= 24, `${name} at ${tag}: ${box.width}x${box.height}`);
      }
    } finally {
      await context.close();
    }
  }
});

test('usage per day: a chart with its title and a table of the days with requests, per key and per tool, after real traffic', async () => {
  const key = await stack.accounts.keys.createProjectKey({
    project: owner.slug,
    workspace: owner.user.workspace,
    level: 'VIEWER',
    name: 'nav-ci',
  });
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${stack.baseUrl}/mcp/${owner.slug}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key.key },
      body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'svc_help', arguments: {} } }),
    });
    await res.body?.cancel();
    assert.equal(res.status, 200);
  }
  const today = new Date().toISOString().slice(0, 10);
  for (const { tag, viewport } of SIZES) {
    const { context, page } = await signedIn(owner.email, viewport);
    try {
      await page.goto(`${stack.authUrl}/dashboard/workspaces/${owner.user.workspace}/usage`);
      await checkPage(page, `usage-${tag}`);
      assert.match((await page.textContent('#chart-daily')) ?? '', /last 30 days: 3 in all, most on \d{4}-\d{2}-\d{2} \(3\)/);
      // Only the days with requests, then the total: no rows of zeros (docs/dashboard.md "Usage").
      const rows = page.locator('[aria-label="Requests per day"] tbody tr');
      assert.equal(await rows.count(), 1);
      const first = (await rows.first().locator('td').allTextContents()).map((t) => t.trim());
      assert.deepEqual(first, [today, '3', `nav-ci (${key.record.prefix}) 3`, 'svc_help 3'], 'today, with its keys and tools');
      assert.match(
        (await page.textContent('main')) ?? '',
        /3 requests in the last 30 days, on 1 day; the 29 days without any are left out/,
      );
      assert.match((await page.textContent('main')) ?? '', /Queries are the tool calls among them/);
    } finally {
      await context.close();
    }
  }
});

test('audit log: filtered by person and date range, carried to the export; a wrong date is told, not a 500', async () => {
  const ws = owner.user.workspace;
  const note = (actor: string, n: number) =>
    stack.accounts.audit.record({
      workspace: ws,
      actor,
      action: 'key.created',
      target: `key:nav-${n}`,
      source: '127.0.0.1',
      requestId: `nav-${n}`,
    });
  await note(owner.email, 1);
  await note('someone-else@example.com', 2);
  await note(owner.email, 3);
  const today = new Date().toISOString().slice(0, 10);
  for (const { tag, viewport } of SIZES) {
    const { context, page } = await signedIn(owner.email, viewport);
    try {
      await page.goto(`${stack.authUrl}/dashboard/workspaces/${ws}/audit`);
      await page.fill('#audit-actor', 'someone-else@example.com');
      await page.fill('#audit-from', today);
      await page.fill('#audit-to', today);
      await Promise.all([page.waitForURL(/actor=/), page.getByRole('button', { name: 'Filter' }).click()]);
      await checkPage(page, `audit-filtered-${tag}`);
      const targets = await page.locator('[aria-label="Audit log"] tbody tr td:nth-child(5)').allTextContents();
      assert.deepEqual(targets, ['key:nav-2'], 'only that person, in that range');
      assert.equal(await page.inputValue('#audit-actor'), 'someone-else@example.com', 'the form shows the filter back');
      const href = (await page.locator('a[download]').getAttribute('href'))!;
      assert.match(href, /export\?actor=someone-else%40example\.com&from=\d{4}-\d{2}-\d{2}&to=/);
      const exported = await page.request.get(`${stack.authUrl}${href}`);
      assert.equal(exported.status(), 200);
      const lines = (await exported.text())
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.deepEqual(
        lines.map((l) => l['target'] ?? l),
        ['key:nav-2', { [AUDIT_EXPORT_END]: true, entries: 1 }],
        'the export is the filtered view',
      );
      const none = await page.goto(
        `${stack.authUrl}/dashboard/workspaces/${ws}/audit?actor=${encodeURIComponent(owner.email)}&to=2020-01-01`,
      );
      assert.equal(none?.status(), 200);
      assert.match((await page.textContent('main')) ?? '', /No entries on this page match the filter/);
      const wrong = await page.goto(`${stack.authUrl}/dashboard/workspaces/${ws}/audit?from=2026-02-31`);
      assert.equal(wrong?.status(), 400);
      assert.match((await page.textContent('[role=alert]')) ?? '', /The from must be a date/);
      await checkPage(page, `audit-wrong-date-${tag}`);
    } finally {
      await context.close();
    }
  }
});
