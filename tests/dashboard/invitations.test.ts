/**
 * Members by invitation, end to end in chromium (docs/management.md "Invitations", docs/dashboard.md
 * "Members"): the owner invites an address that has no account from Project > Members; the mail is
 * read from a real SMTP server; the new person signs up, confirms the address from its mail, accepts,
 * and reaches the project at the invited level. Pending invitations are listed with their expiry and
 * revoked through a confirmation step; inviting again is bounded, and inviting a member is refused.
 * Each page passes axe at desktop and phone sizes; screenshots under test-output/screenshots/.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startSmtpInbox, waitFor, type SmtpInbox } from '@svc/testkit';
import { shot, signInOnPage, startStackAndBrowser, stopStackAndBrowser } from '../auth/browser.ts';
import { axeViolations } from '../support/axe.ts';
import { newPerson, PASSWORD, type Stack } from '../support/stack.ts';

let stack: Stack;
let browser: Browser;
let smtp: SmtpInbox;
let owner: Awaited<ReturnType<typeof newPerson>>;

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

before(async () => {
  smtp = await startSmtpInbox();
  ({ stack, browser } = await startStackAndBrowser({ SMTP_URL: smtp.url }));
  owner = await newPerson(stack, 'inviter');
});
after(async () => {
  await stopStackAndBrowser(stack, browser);
  await smtp.close();
});

async function checkPage(page: Page, name: string): Promise<void> {
  const violations = await axeViolations(page);
  await shot(page, `invitations-${name}`);
  assert.deepEqual(violations, [], `axe on ${name}:\n${violations.join('\n')}`);
}

const stranger = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 8)}@example.com`;
const membersUrl = () => `${stack.authUrl}/dashboard/projects/${owner.slug}/members`;
const main = async (page: Page) => (await page.textContent('main')) ?? '';

/** The first link of the latest mail to `to` whose text matches `path` (e.g. `/invitation`). */
async function linkMailed(to: string, path: string): Promise<string> {
  const pattern = new RegExp(`(http://127\\.0\\.0\\.1:\\d+${path}\\?token=[A-Za-z0-9_-]+)`);
  const mail = await waitFor(() => smtp.mails.findLast((m) => m.to === to && pattern.test(m.text)), { message: `a ${path} mail to ${to}` });
  return pattern.exec(mail.text)![1]!;
}

async function ownerPage(size = DESKTOP): Promise<Page> {
  const page = await (await browser.newContext({ viewport: size })).newPage();
  await page.goto(membersUrl());
  await signInOnPage(page, owner.email, PASSWORD);
  await page.waitForURL(membersUrl());
  return page;
}

async function invite(page: Page, email: string, role: string): Promise<void> {
  await page.fill('#member-email', email);
  await page.selectOption('#member-role', role);
  await page.click('main form button[type=submit]:has-text("Add member")');
}

test('an invited address signs up, confirms, accepts and reaches the project at the invited level', async () => {
  const email = stranger('newcomer');
  const page = await ownerPage();
  try {
    await Promise.all([page.waitForURL(/done=member-invited/), invite(page, email, 'EDITOR')]);
    const row = page.locator(`tr:has-text("${email}")`);
    assert.match((await row.textContent()) ?? '', /EDITOR[\s\S]*\d{4}-\d{2}-\d{2}/, 'listed with its role and the date its link ends');
    await checkPage(page, 'pending');

    // Inviting the same address again within the hour is refused, saying until when the first link works.
    await invite(page, email, 'ADMIN');
    await page.waitForSelector('#member-error');
    assert.match(await main(page), /was invited less than an hour ago/);
    await checkPage(page, 'reinvite-refused');

    // The mail, read from the SMTP server: the link, the project, the level.
    const link = await linkMailed(email, '/invitation');
    const mail = smtp.mails.findLast((m) => m.to === email)!;
    assert.match(mail.text, new RegExp(`invited ${email.replace('.', '\\.')} to project ${owner.slug} as EDITOR`));

    // The newcomer: the link asks them to sign in, and from there to create the account.
    const theirs = await (await browser.newContext({ viewport: PHONE })).newPage();
    await theirs.goto(link);
    await theirs.waitForSelector('form[action="/signin"]');
    await theirs.click('a:has-text("Create one")');
    await theirs.fill('#email', email);
    await theirs.fill('#password', PASSWORD);
    await theirs.click('form[action="/signup"] button[type=submit]');
    await theirs.waitForSelector('text=We sent a message to');
    await checkPage(theirs, 'signed-up-phone');

    // Confirming the address from its mail, in another tab.
    const confirmTab = await theirs.context().newPage();
    await confirmTab.goto(await linkMailed(email, '/verify-email'));
    await confirmTab.click('form[action="/verify-email"] button[type=submit]');
    await confirmTab.waitForSelector('text=is confirmed');
    await confirmTab.close();

    // Back on the first tab: sign in, which returns to the invitation; the first view changes nothing.
    await theirs.click('main a:has-text("Sign in")');
    await signInOnPage(theirs, email, PASSWORD);
    await theirs.waitForSelector('form[action="/invitation"]');
    assert.match(await main(theirs), new RegExp(`invited to the project ${owner.slug} as EDITOR`));
    await checkPage(theirs, 'join-phone');
    const user = (await stack.accounts.users.findByEmail(email))!;
    const project = (await stack.accounts.workspaces.getProject(owner.slug))!;
    assert.equal(await stack.accounts.workspaces.roleOf(user.id, project), 'NONE', 'opening the link adds nobody');

    await theirs.click('form[action="/invitation"] button[type=submit]');
    await theirs.waitForSelector('text=You are now EDITOR');
    await checkPage(theirs, 'joined-phone');
    assert.equal(await stack.accounts.workspaces.roleOf(user.id, project), 'EDITOR');

    // They see the project in their dashboard.
    await theirs.goto(`${stack.authUrl}/dashboard/projects/${owner.slug}/members`);
    assert.match(await main(theirs), new RegExp(`${email.replace('.', '\\.')}[\\s\\S]*EDITOR`));

    // The owner's list: a member now, no longer pending; inviting them again is refused as a member.
    await page.goto(membersUrl());
    assert.equal(await page.locator('table:has(caption:has-text("Pending invitations"))').count(), 0);
    await invite(page, email, 'ADMIN');
    await page.waitForSelector('#member-error');
    assert.match(await main(page), /is already EDITOR on/);
    assert.equal(await stack.accounts.workspaces.roleOf(user.id, project), 'EDITOR', 'the role did not change');
    await theirs.context().close();
  } finally {
    await page.context().close();
  }
});

test('a pending invitation is revoked through a confirmation step; its link then works no more', async () => {
  for (const size of [DESKTOP, PHONE]) {
    const tag = size === PHONE ? '-phone' : '';
    const email = stranger('revoked');
    const page = await ownerPage(size);
    try {
      await Promise.all([page.waitForURL(/done=member-invited/), invite(page, email, 'VIEWER')]);
      const link = await linkMailed(email, '/invitation');
      await checkPage(page, `members${tag}`);
      const pending = async () => (await stack.accounts.invitations.list(owner.slug)).filter((i) => i.email === email).length;

      // The first click only asks, saying what revoking ends.
      await page.click(`tr:has-text("${email}") button:has-text("Revoke")`);
      await page.waitForSelector('main form button.danger');
      assert.match(await main(page), /stops working at once/);
      await checkPage(page, `revoke-confirm${tag}`);
      assert.equal(await pending(), 1, 'the first step revokes nothing');

      await Promise.all([page.waitForURL(/done=invitation-cancelled/), page.click('main form button.danger')]);
      assert.equal(await pending(), 0);
      assert.doesNotMatch(await main(page), new RegExp(email.replace('.', '\\.')));

      const opened = await page.context().request.get(link, { maxRedirects: 0 });
      assert.equal(opened.status(), 400, 'the revoked link is refused');
      assert.match(await opened.text(), /expired, was cancelled or was already accepted/);
    } finally {
      await page.context().close();
    }
  }
});
