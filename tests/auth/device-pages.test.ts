/**
 * The pages a person meets when a device code is not good (unknown, expired, already used), when
 * they deny a request, when they sign out, and on a phone-sized screen. Each page is checked for
 * its words and screenshotted under test-output/screenshots/ for a reviewer.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { oidcRecordKey } from '@svc/accounts';
import { newPerson, PASSWORD, type Stack } from '../support/stack.ts';
import { approveDevice, startStackAndBrowser, stopStackAndBrowser, shot, signInOnPage } from './browser.ts';

let stack: Stack;
let browser: Browser;
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

before(async () => ({ stack, browser } = await startStackAndBrowser()));
after(() => stopStackAndBrowser(stack, browser));

const person = (prefix: string) => newPerson(stack, prefix);

async function deviceCode(clientId: string) {
  const res = await fetch(`${stack.authUrl}/api/oauth/device/code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: clientId }),
  });
  assert.equal(res.status, 200);
  return (await res.json()) as { device_code: string; user_code: string; verification_uri: string; verification_uri_complete: string };
}

async function poll(deviceCodeValue: string, clientId: string) {
  const res = await fetch(`${stack.authUrl}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: DEVICE_GRANT, device_code: deviceCodeValue, client_id: clientId }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Signs in, then types `code` at /device; returns the page showing the outcome. */
async function typeCode(page: Page, who: { email: string }, code: string): Promise<string> {
  await page.goto(`${stack.authUrl}/signin`);
  await signInOnPage(page, who.email, PASSWORD);
  await page.waitForURL(`${stack.authUrl}/`);
  await page.goto(`${stack.authUrl}/device`);
  await page.fill('#user_code', code);
  await page.click('button[type=submit]');
  await page.waitForSelector('main h1');
  return (await page.textContent('main')) ?? '';
}

async function withPage<T>(fn: (page: Page) => Promise<T>, options: { viewport?: { width: number; height: number } } = {}): Promise<T> {
  const context = await browser.newContext(options.viewport ? { viewport: options.viewport, isMobile: true, hasTouch: true } : {});
  try {
    return await fn(await context.newPage());
  } finally {
    await context.close();
  }
}

test('an unknown code gets a page that says so and offers the form again', async () => {
  const who = await person('unknown');
  const text = await withPage(async (page) => {
    const t = await typeCode(page, who, 'BCDF-2345');
    await shot(page, 'device-code-unknown');
    assert.ok(await page.isVisible('#user_code'), 'the code form is offered again');
    return t;
  });
  assert.match(text, /That code is unknown/);
});

test('an expired code gets a page telling the person to start again on the device', async () => {
  const who = await person('expired');
  const dc = await deviceCode('svc-companion');
  const key = oidcRecordKey('DeviceCode', dc.device_code);
  const payload = JSON.parse((await stack.client.hget(key, 'payload')) ?? '{}') as Record<string, unknown>;
  assert.ok(payload['userCode'], 'the device code is stored');
  await stack.client.hset(key, 'payload', JSON.stringify({ ...payload, exp: Math.floor(Date.now() / 1000) - 1 }));
  const text = await withPage(async (page) => {
    const t = await typeCode(page, who, dc.user_code);
    await shot(page, 'device-code-expired');
    return t;
  });
  assert.match(text, /That code has expired\. Start again on your device/);
  assert.equal((await poll(dc.device_code, 'svc-companion')).body['error'], 'expired_token');
});

test('a code that was already approved cannot be approved twice', async () => {
  const who = await person('used');
  const dc = await deviceCode('svc-companion');
  const done = await approveDevice(browser, {
    verificationUri: dc.verification_uri,
    verificationUriComplete: dc.verification_uri_complete,
    userCode: dc.user_code,
    email: who.email,
    password: PASSWORD,
    approval: { kind: 'select', project: who.slug },
    name: 'used-first',
    typeCode: false,
  });
  assert.match(done, /Device connected/);
  const text = await withPage(async (page) => {
    const t = await typeCode(page, who, dc.user_code);
    await shot(page, 'device-code-already-used');
    return t;
  });
  assert.match(text, /That code has already been used/);
  // The first approval still yields its token, once.
  const first = await poll(dc.device_code, 'svc-companion');
  assert.equal(first.status, 200);
  assert.equal((await poll(dc.device_code, 'svc-companion')).body['error'], 'invalid_grant');
});

test('denying on the consent page tells the person nothing was authorized; the device hears access_denied', async () => {
  const who = await person('deny');
  const dc = await deviceCode('svc-mcp');
  const text = await approveDevice(browser, {
    verificationUri: dc.verification_uri,
    verificationUriComplete: dc.verification_uri_complete,
    userCode: dc.user_code,
    email: who.email,
    password: PASSWORD,
    approval: { kind: 'deny' },
    name: 'device-denied',
    typeCode: false,
  });
  assert.doesNotMatch(text, /Device connected/);
  assert.match(
    text,
    /Device refused\s*You refused the request\. Nothing was authorized, and the device has been told\. You can close this page\./,
  );
  assert.doesNotMatch(text, /Enter the code shown/, 'not back on the code form');
  const answer = await poll(dc.device_code, 'svc-mcp');
  assert.equal(answer.status, 400);
  assert.equal(answer.body['error'], 'access_denied');
});

test('sign-out is a POST with CSRF protection and ends the session', async () => {
  const who = await person('signout');
  await withPage(async (page) => {
    await page.goto(`${stack.authUrl}/signin`);
    await signInOnPage(page, who.email, PASSWORD);
    await page.waitForURL(`${stack.authUrl}/`);
    await page.goto(`${stack.authUrl}/signout`);
    await shot(page, 'signout-01-confirm');
    await page.click('form[action="/signout"] button[type=submit]');
    await page.waitForSelector('[role=status]');
    assert.match((await page.textContent('main')) ?? '', /You are signed out/);
    await shot(page, 'signout-02-done');
    // The next approval asks who is there again.
    const dc = await deviceCode('svc-companion');
    await page.goto(dc.verification_uri_complete);
    await page.click('button[name=confirm]');
    await page.waitForSelector('form[action="/signin"]');
  });
  const forged = await fetch(`${stack.authUrl}/signout`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  });
  assert.equal(forged.status, 403);
});

test('on a phone-sized screen the sign-in, code and consent pages fit without sideways scrolling', async () => {
  const who = await person('phone');
  const dc = await deviceCode('svc-mcp');
  await withPage(
    async (page) => {
      const fits = async (name: string) => {
        await shot(page, name);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `${name} overflows by ${overflow}px`);
      };
      await page.goto(dc.verification_uri_complete);
      await page.waitForSelector('.code-shown');
      await fits('phone-01-confirm-code');
      await page.click('button[name=confirm]');
      await page.waitForSelector('form[action="/signin"]');
      await fits('phone-02-signin');
      await signInOnPage(page, who.email, PASSWORD);
      await page.waitForSelector('form[action$="/consent"]');
      await fits('phone-03-consent');
    },
    { viewport: { width: 390, height: 844 } },
  );
});

test('a person without a project creates one on the consent page and continues: the device gets a token for it', async () => {
  const email = `noproject-${Math.random().toString(36).slice(2, 8)}@example.com`;
  await stack.accounts.users.create({ emailVerified: true, email, password: PASSWORD });
  const dc = await deviceCode('svc-mcp');
  await withPage(async (page) => {
    await page.goto(dc.verification_uri_complete);
    await page.waitForSelector('.code-shown');
    await page.click('button[name=confirm]');
    await signInOnPage(page, email, PASSWORD);
    await page.waitForSelector('form[action$="/create-project"]');
    assert.match((await page.textContent('main')) ?? '', /Create one now and continue/);
    // A name without two letters or digits is refused at its field.
    await page.fill('#project-name', '!!');
    await page.click('form[action$="/create-project"] button[type=submit]');
    await page.waitForSelector('#project-name-error');
    assert.equal(await page.getAttribute('#project-name', 'aria-invalid'), 'true');
    await shot(page, 'device-no-project-error');
    await page.fill('#project-name', 'My Notes');
    await page.click('form[action$="/create-project"] button[type=submit]');
    await page.waitForSelector('input[name=project]');
    const slug = await page.getAttribute('input[name=project]', 'value');
    assert.match(slug ?? '', /^my-notes/);
    await shot(page, 'device-no-project-then-choose');
    await page.click('form[action$="/consent"] button[type=submit]');
    await page.waitForSelector('main h1');
    assert.match((await page.textContent('main')) ?? '', /Device connected/);
  });
  const token = await poll(dc.device_code, 'svc-mcp');
  assert.equal(token.status, 200, JSON.stringify(token.body));
  assert.match(String(token.body['mcp_endpoint']), /\/mcp\/my-notes/);
});
