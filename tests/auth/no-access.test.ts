/**
 * No dead end when the person has no access to the project a client asked for (docs/auth-service.md
 * "No dead ends"): the page offers to request access or to use another account; requesting creates
 * an access request for the project's admins, and the client is told access_denied, with `iss`
 * (RFC 9207), at its redirect URI. Sign-up, the other way in, says what was wrong at the field
 * that was wrong. Checked with axe-core at desktop and phone sizes.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as oc from 'openid-client';
import type { Browser } from 'playwright-core';
import { axeViolations } from '../support/axe.ts';
import { newPerson, PASSWORD, startStack, type Stack } from '../support/stack.ts';
import { launchBrowser, shot, signInOnPage } from './browser.ts';

const REDIRECT = 'http://127.0.0.1:45998/callback';
let stack: Stack;
let browser: Browser;
let config: oc.Configuration;

before(async () => {
  stack = await startStack();
  browser = await launchBrowser();
  config = await oc.dynamicClientRegistration(
    new URL(stack.authUrl),
    { client_name: 'Docs assistant', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
    oc.None(),
    { algorithm: 'oauth2', execute: [oc.allowInsecureRequests] },
  );
});
after(async () => {
  await browser.close();
  await stack.close();
});

test('no access: request it from the page; the client hears access_denied with iss; the admins see the request', async () => {
  const owner = await newPerson(stack, 'owner');
  const outsider = await newPerson(stack, 'outsider');
  for (const [size, tag] of [
    [{ width: 1280, height: 900 }, 'desktop'],
    [{ width: 390, height: 844 }, 'phone'],
  ] as const) {
    const context = await browser.newContext({ viewport: size });
    try {
      const page = await context.newPage();
      let callback = '';
      await page.route(`${REDIRECT}**`, async (route) => {
        callback = route.request().url();
        await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>done</p>' });
      });
      const verifier = oc.randomPKCECodeVerifier();
      const url = oc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope: 'mcp',
        code_challenge: await oc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state: 'st',
        resource: `${stack.baseUrl}/mcp/${owner.slug}`,
      });
      await page.goto(url.href);
      assert.match((await page.textContent('main')) ?? '', /You are signing in for Docs assistant, an app not verified by svc\./);
      await signInOnPage(page, outsider.email, PASSWORD);
      await page.waitForSelector('form[action$="/request-access"]');
      const text = (await page.textContent('main')) ?? '';
      assert.match(text, new RegExp(`you have no access to project ${owner.slug}`));
      assert.match(text, /Sign out and use another account/);
      const violations = await axeViolations(page);
      await shot(page, `no-access-${tag}`);
      assert.deepEqual(violations, [], violations.join('\n'));
      await page.selectOption('#level', 'VIEWER');
      await page.fill('#reason', `I review the docs (${tag})`);
      await page.click('form[action$="/request-access"] button[type=submit]');
      await page.waitForURL(`${REDIRECT}**`);
      const answer = new URL(callback);
      assert.equal(answer.searchParams.get('error'), 'access_denied');
      assert.equal(answer.searchParams.get('iss'), stack.authUrl.replace(/\/$/, ''));
      assert.match(answer.searchParams.get('error_description') ?? '', /access was requested/);
    } finally {
      await context.close();
    }
  }
  const requests = await stack.accounts.accessRequests.list(owner.slug);
  assert.equal(requests.length, 1, 'one pending request per person, updated by the second ask');
  assert.deepEqual(
    [requests[0]!.requester.label, requests[0]!.requested_level, requests[0]!.status],
    [outsider.email, 'VIEWER', 'pending'],
  );
  assert.match(requests[0]!.reason, /I review the docs \(phone\)/);
});

test('a page that does not exist: the styled 404 with its landmarks, and a focus ring of at least 3:1', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  try {
    const page = await context.newPage();
    const res = await page.goto(`${stack.authUrl}/no-such-page`);
    assert.equal(res?.status(), 404);
    assert.equal(await page.textContent('main h1'), 'Page not found');
    for (const landmark of ['header', 'main', 'footer']) assert.equal(await page.locator(landmark).count(), 1, landmark);
    const violations = await axeViolations(page);
    await shot(page, 'not-found-phone');
    assert.deepEqual(violations, [], violations.join('\n'));
    await page.keyboard.press('Tab');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineColor);
    const [r, g, b] = (outline.match(/\d+/g) ?? []).map(Number);
    const lum = (c: number) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    const l = 0.2126 * lum(r!) + 0.7152 * lum(g!) + 0.0722 * lum(b!);
    // Against the page's light grey (#f4f5f7), the darkest thing next to the ring.
    const contrast = (0.9131 + 0.05) / (l + 0.05);
    assert.ok(contrast >= 3, `focus ring ${outline}: contrast ${contrast.toFixed(2)}`);
  } finally {
    await context.close();
  }
});

test('sign-up refusals are tied to their field, focused, and pass axe at both sizes', async () => {
  const taken = await newPerson(stack, 'taken');
  for (const size of [
    { width: 1280, height: 900 },
    { width: 390, height: 844 },
  ]) {
    const context = await browser.newContext({ viewport: size });
    try {
      const page = await context.newPage();
      await page.goto(`${stack.authUrl}/signup`);
      await page.fill('#email', `weak-${size.width}@example.com`);
      // The browser's own length check would stop a short password: send a common long one instead.
      await page.fill('#password', 'password1234');
      await Promise.all([page.waitForLoadState('load'), page.click('form[action="/signup"] button[type=submit]')]);
      assert.equal(await page.getAttribute('#password', 'aria-invalid'), 'true');
      assert.equal(await page.getAttribute('#password', 'aria-describedby'), 'password-error');
      assert.match((await page.textContent('#password-error')) ?? '', /^That password is one of the most common ones; choose another\.$/);
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'password', 'focus on the field that was wrong');
      assert.equal(await page.inputValue('#email'), `weak-${size.width}@example.com`, 'the email is kept');
      assert.deepEqual(await axeViolations(page), []);
      await shot(page, `signup-password-error-${size.width}`);

      // A taken address is not refused: the answer is the one a new address gets (docs/auth-service.md
      // "Sign-up and reset reveal no accounts"), and the owner is told by mail.
      await page.fill('#email', taken.email);
      await page.fill('#password', 'a long enough passphrase');
      await Promise.all([page.waitForLoadState('load'), page.click('form[action="/signup"] button[type=submit]')]);
      assert.match((await page.textContent('main [role=status]')) ?? '', /We sent a message to/);
      assert.deepEqual(await axeViolations(page), []);
    } finally {
      await context.close();
    }
  }
});
