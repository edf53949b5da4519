/**
 * A dashboard with no step where a person must guess (docs/dashboard.md), in chromium: the open
 * project kept across the Workspace sections (header and footer name it), the SSO page's real
 * callback URL with a Copy button, the key list's primary button, row menu, relative times and
 * collapsed filter, the second-factor pages in the dashboard's frame (a mistyped enrolment code
 * keeps the secret; recovery codes copied and downloaded), and the account's sessions told apart
 * by device, address and last activity.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { User } from '@svc/accounts';
import { signInOnPage, startStackAndBrowser, stopStackAndBrowser } from '../auth/browser.ts';
import { PASSWORD, type Stack } from '../support/stack.ts';

let stack: Stack;
let browser: Browser;
let owner: User;
const EMAIL = 'wayfinder@example.com';
const DESKTOP = { width: 1280, height: 800 };

function base32(s: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of s.replace(/[\s=]/g, '').toUpperCase()) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  return Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
}
/** RFC 6238 (HMAC-SHA-1, 30 s, 6 digits) with RFC 4226 §5.3's truncation. */
function totp(secret: string): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 30_000)));
  const mac = createHmac('sha1', base32(secret)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

before(async () => {
  ({ stack, browser } = await startStackAndBrowser());
  owner = await stack.accounts.users.create({ emailVerified: true, email: EMAIL, password: PASSWORD });
  // `acme-bot` sorts first: a default of "the first project" would open it.
  for (const slug of ['acme-bot', 'demo']) await stack.accounts.workspaces.createProject({ slug, workspace: owner.workspace });
  await stack.accounts.keys.createProjectKey({
    project: 'demo',
    workspace: owner.workspace,
    name: 'ci deploy',
    level: 'EDITOR',
    expiresInSeconds: 30 * 86_400,
  });
});
after(() => stopStackAndBrowser(stack, browser));

async function signedIn(options: Parameters<Browser['newContext']>[0] = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: DESKTOP, ...options });
  const page = await context.newPage();
  await page.goto(`${stack.authUrl}/dashboard`);
  await signInOnPage(page, EMAIL, PASSWORD);
  await page.waitForSelector('main h1');
  return { context, page };
}

/** What the header's project switcher and the footer say the open project is. */
async function namedProject(page: Page): Promise<{ header: string; footer: string }> {
  return { header: await page.inputValue('#switch-project'), footer: ((await page.textContent('footer')) ?? '').trim() };
}

test('the open project stays open: Usage and the other Workspace pages name it, and API Keys returns to it', async () => {
  const { context, page } = await signedIn();
  try {
    await page.goto(`${stack.authUrl}/dashboard/projects/demo/keys`);
    for (const section of ['Usage', 'Service accounts', 'Audit log', 'Single sign-on', 'Webhooks']) {
      await Promise.all([page.waitForURL(/\/workspaces\//), page.click(`nav.sections a:text-is("${section}")`)]);
      const named = await namedProject(page);
      assert.equal(named.header, 'demo', `${section}: the header's project`);
      assert.match(named.footer, /project demo$/, `${section}: the footer`);
      await Promise.all([page.waitForURL(/\/projects\/demo\/keys$/), page.click('nav.sections a:text-is("API Keys")')]);
    }
    // Pages that are no project's, and the dashboard's entry, stay on it too.
    for (const path of ['/dashboard/account', '/factors', `/dashboard/workspaces/${owner.workspace}/usage`]) {
      await page.goto(`${stack.authUrl}${path}`);
      assert.equal((await namedProject(page)).header, 'demo', path);
    }
    await page.goto(`${stack.authUrl}/dashboard`);
    assert.match(page.url(), /\/projects\/demo\/keys$/, 'the entry opens the project last opened');
    // Another project opened: the same pages follow it.
    await page.goto(`${stack.authUrl}/dashboard/projects/acme-bot/members`);
    await page.click('nav.sections a:text-is("Usage")');
    await page.waitForURL(/\/usage\?project=acme-bot$/);
    assert.equal((await namedProject(page)).header, 'acme-bot');
  } finally {
    await context.close();
  }
});

test('the SSO page shows the real callback URL, and its Copy button copies it', async () => {
  const { context, page } = await signedIn();
  try {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.authUrl });
    await page.goto(`${stack.authUrl}/dashboard/workspaces/${owner.workspace}/sso`);
    const callback = `${stack.authUrl}/sso/callback`;
    assert.equal(((await page.textContent('#sso-callback')) ?? '').trim(), callback);
    assert.ok(!((await page.textContent('main')) ?? '').includes('{auth host}'), 'no placeholder left');
    await page.click('button[data-copy="sso-callback"]');
    await page.waitForSelector('button[data-copy="sso-callback"]:text-is("Copied")');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), callback);
  } finally {
    await context.close();
  }
});

test('the key list: a primary Create key at the top, actions in a menu, relative times with the exact one on hover, the filter collapsed', async () => {
  const { context, page } = await signedIn();
  try {
    await page.goto(`${stack.authUrl}/dashboard/projects/demo/keys`);
    const create = page.locator('main .title-row a.button', { hasText: 'Create key' });
    assert.equal(await create.count(), 1, 'Create key beside the title');
    assert.equal(await page.isVisible('#key-status'), false, 'the filter is collapsed');
    const revoke = page.locator('tr:has-text("ci deploy") a:text-is("Revoke")');
    assert.equal(await revoke.isVisible(), false, 'row actions wait in their menu');
    await page.click('tr:has-text("ci deploy") details.menu summary');
    assert.equal(await revoke.isVisible(), true, 'the menu opens without a script');
    const expires = page.locator('tr:has-text("ci deploy") td[data-label="Expires"] time');
    assert.match((await expires.textContent()) ?? '', /^in (30|29) days$/);
    assert.match((await expires.getAttribute('title')) ?? '', /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
    assert.match((await expires.getAttribute('datetime')) ?? '', /^\d{4}-\d{2}-\d{2}T/);

    await Promise.all([page.waitForURL(/\/keys\/new$/), create.click()]);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'key-name', 'the form opens on its first field');
    await page.fill('#key-name', 'from the button');
    await Promise.all([page.waitForURL(/\/keys\/reveal\//), page.click('main form button[type=submit]')]);
    assert.match((await page.textContent('.secret')) ?? '', /you will not see it again/);
  } finally {
    await context.close();
  }
});

test('second-factor pages in the dashboard frame: a mistyped code keeps the secret; recovery codes copied and downloaded', async () => {
  const { context, page } = await signedIn();
  try {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.authUrl });
    await page.goto(`${stack.authUrl}/factors`);
    assert.equal(
      await page.locator('nav.sections a[aria-current=page]').textContent(),
      'Second factors',
      'in the frame, its section marked',
    );
    const sizes = await page.evaluate(() =>
      [...document.querySelectorAll('main h1, main h2')].map((h) => parseFloat(getComputedStyle(h).fontSize)),
    );
    const [title, ...headings] = sizes;
    assert.ok(headings.length > 0 && headings.every((h) => h < title!), `headings ${headings.join(', ')} px under the title's ${title} px`);

    await page.goto(`${stack.authUrl}/factors/totp`);
    const secret = ((await page.textContent('#secret')) ?? '').replace(/\s/g, '');
    const qr = await page.getAttribute('main img', 'src');
    await page.fill('#code', totp(secret) === '000000' ? '111111' : '000000');
    await page.click('form.enrol button[type=submit]');
    await page.waitForSelector('main p.error');
    assert.match((await page.textContent('main p.error')) ?? '', /The secret is the same, so there is nothing to scan again/);
    assert.equal(((await page.textContent('#secret')) ?? '').replace(/\s/g, ''), secret, 'the same secret after a mistyped code');
    assert.equal(await page.getAttribute('main img', 'src'), qr, 'the same QR code');
    await page.fill('#code', totp(secret));
    await page.click('form.enrol button[type=submit]');
    await page.waitForSelector('#recovery-codes');
    assert.equal(await page.locator('nav.sections').count(), 1, 'the recovery codes in the frame');
    const codes = (await page.$$eval('.recovery-codes code', (els) => els.map((e) => e.textContent ?? ''))).filter(Boolean);
    assert.equal(codes.length, 10);

    await page.click('button[data-copy="recovery-codes"]');
    await page.waitForSelector('button[data-copy="recovery-codes"]:text-is("Copied")');
    assert.deepEqual((await page.evaluate(() => navigator.clipboard.readText())).split(/\s+/), codes, 'every code, one a line');

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('a[download="svc-recovery-codes.txt"]')]);
    assert.equal(download.suggestedFilename(), 'svc-recovery-codes.txt');
    const text = await readFile(await download.path(), 'utf8');
    for (const code of codes) assert.ok(text.includes(`${code}\n`), `the file holds ${code}`);

    // Step-up, in the frame too.
    await page.goto(`${stack.authUrl}/factors/step-up?return=${encodeURIComponent('/dashboard/account')}`);
    assert.equal(await page.textContent('main h1'), 'Confirm it is you');
    assert.equal(await page.locator('nav.sections').count(), 1);
  } finally {
    await context.close();
    await stack.accounts.factors.removeTotp(owner.id);
  }
});

test('sessions: device, address and last activity; this browser marked; alike sessions grouped', async () => {
  const firefox = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
  const others = [];
  for (let i = 0; i < 3; i++) others.push(await signedIn());
  others.push(await signedIn({ userAgent: firefox }));
  const { context, page } = await signedIn();
  try {
    await page.goto(`${stack.authUrl}/dashboard/account`);
    const rows = page.locator('div[aria-label="Sessions"] tbody tr');
    const texts = (await rows.allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
    assert.equal(texts.length, 3, `this browser, the three alike, the Firefox one: ${texts.join(' | ')}`);
    assert.match(texts[0]!, /Chrome \d+ on Linux · this browser/);
    assert.match(texts[0]!, /127\.0\.0\.1/);
    assert.match(texts[0]!, /just now/);
    // The three here, and those the tests before signed in: one row.
    const alike = Number(/Chrome \d+ on Linux\s*(\d+) sessions/.exec(texts.join('|'))?.[1]);
    assert.ok(alike >= 3, `the alike sessions are one row: ${texts.join(' | ')}`);
    assert.ok(texts.some((t) => /Firefox 128 on Windows/.test(t)));
    const seen = await page.locator('div[aria-label="Sessions"] td[data-label="Last active"] time').first().getAttribute('title');
    assert.match(seen ?? '', /UTC$/, 'the exact time on hover');

    // Ending one of the group: its menu lists each, with when it signed in.
    const group = `div[aria-label="Sessions"] tr:has-text("${alike} sessions")`;
    await page.click(`${group} details.menu summary`);
    await Promise.all([page.waitForURL(/done=session-ended/), page.click(`${group} li button >> nth=0`)]);
    assert.match((await page.textContent('div[aria-label="Sessions"]')) ?? '', new RegExp(`${alike - 1} sessions`));
  } finally {
    await context.close();
    for (const o of others) await o.context.close();
  }
});
