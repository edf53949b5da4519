/**
 * Passkeys in chromium (docs/auth-service.md "Passkeys"), with the DevTools WebAuthn domain's
 * virtual authenticator (a CTAP2 platform authenticator with resident keys and user
 * verification): a passkey added from the factors page, used after the password and without
 * one, a replayed assertion refused, and removed (confirmation and step-up); axe-core on each new
 * page at desktop and phone sizes. The auth-service runs on `localhost`: browsers refuse an IP
 * address as RP ID (WebAuthn Level 3 §5.1.3 step 8, a registrable domain suffix or equal host).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeViolations } from '../support/axe.ts';
import { newPerson, PASSWORD, startStack, type Stack } from '../support/stack.ts';
import { launchBrowser, shot, signInOnPage } from './browser.ts';

let stack: Stack;
let browser: Browser;
before(async () => {
  stack = await startStack({}, { authHost: 'localhost' });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await stack?.close();
});

const PHONE = { width: 375, height: 667 };

async function withAuthenticator(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  return page;
}

async function noViolations(page: Page, what: string): Promise<void> {
  assert.deepEqual(await axeViolations(page), [], `${what}: axe-core violations`);
}

for (const [size, viewport] of [
  ['desktop', undefined],
  ['phone', PHONE],
] as const) {
  test(`${size}: a passkey added, used after the password and without one, a replay refused, removed`, async () => {
    const who = await newPerson(stack, `pk-${size}`);
    const context = await browser.newContext(viewport ? { viewport, isMobile: true, hasTouch: true } : {});
    try {
      const page = await withAuthenticator(context);
      await page.goto(`${stack.authUrl}/signin?return=${encodeURIComponent('/dashboard')}`);
      await signInOnPage(page, who.email, PASSWORD);
      await page.waitForURL(/\/dashboard/);

      await page.goto(`${stack.authUrl}/factors/passkey`);
      await page.waitForSelector('form[data-passkey="create"]');
      await noViolations(page, 'add-a-passkey page');
      await shot(page, `pk-${size}-add`);
      await page.click('form[data-passkey] button[type=submit]');
      await page.waitForSelector('ul.passkeys li');
      assert.match((await page.textContent('[role=status]')) ?? '', /passkey was added/);
      await noViolations(page, 'factors page with a passkey');
      assert.equal((await stack.accounts.factors.passkeys.list(who.user.id)).length, 1);

      // Password, then the passkey as the second factor.
      await context.clearCookies();
      await page.goto(`${stack.authUrl}/signin?return=${encodeURIComponent('/dashboard')}`);
      await signInOnPage(page, who.email, PASSWORD);
      await page.waitForURL(/\/signin\/factor$/);
      await noViolations(page, 'second-factor page with a passkey');
      await page.click('form[data-passkey="get"] button[type=submit]');
      await page.waitForURL(/\/dashboard/);

      // Passwordless; the assertion the page posts is kept and posted again.
      await context.clearCookies();
      await page.goto(`${stack.authUrl}/signin?return=${encodeURIComponent('/dashboard')}`);
      await page.waitForSelector('a[href^="/signin/passkey"]');
      await noViolations(page, 'sign-in page with its passkey link');
      await page.click('a[href^="/signin/passkey"]');
      await page.waitForSelector('form[data-passkey="get"]');
      await noViolations(page, 'passkey sign-in page');
      await shot(page, `pk-${size}-signin`);
      const posted = page.waitForRequest((r) => r.url().endsWith('/signin/passkey') && r.method() === 'POST');
      await page.click('form[data-passkey] button[type=submit]');
      const body = (await posted).postData() ?? '';
      await page.waitForURL(/\/dashboard/);
      // Posted again from another browser, with that browser's own page, token and challenge.
      const other = await browser.newContext();
      const form = await (await other.request.get(`${stack.authUrl}/signin/passkey`)).text();
      const csrf = /name="csrf" value="([^"]+)"/.exec(form)?.[1] ?? '';
      const fields = new URLSearchParams(body);
      fields.set('csrf', csrf);
      const replay = await other.request.post(`${stack.authUrl}/signin/passkey`, {
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: stack.authUrl },
        data: fields.toString(),
        maxRedirects: 0,
      });
      const replayText = await replay.text();
      await other.close();
      assert.equal(replay.status(), 400, 'a replayed assertion is refused');
      assert.match(replayText, /not accepted/);

      // Removed: the confirmation box, then a step-up with the passkey (the session's factor made
      // old here), then gone.
      const sessions = await stack.client.smembers(`svc:oidc:user-web-sessions:${who.user.id}`);
      for (const s of sessions) await stack.client.hdel(`svc:oidc:web-session:${s}`, 'factorAt');
      await page.goto(`${stack.authUrl}/factors`);
      await page.check('form[action="/factors/passkey/remove"] input[name=confirm]');
      await page.click('form[action="/factors/passkey/remove"] button[type=submit]');
      await page.waitForURL(/\/factors\/step-up/);
      await noViolations(page, 'step-up page with a passkey');
      await page.click('form[data-passkey="get"] button[type=submit]');
      await page.waitForURL(/\/factors$/);
      await page.check('form[action="/factors/passkey/remove"] input[name=confirm]');
      await page.click('form[action="/factors/passkey/remove"] button[type=submit]');
      await page.waitForSelector('text=The passkey was removed.');
      assert.equal((await stack.accounts.factors.passkeys.list(who.user.id)).length, 0);
    } finally {
      await context.close();
    }
  });
}
