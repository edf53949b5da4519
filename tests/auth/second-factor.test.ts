/**
 * The second factor in chromium (docs/auth-service.md "Second factor"), codes computed here from
 * RFC 6238: enrolment on the account page (QR code and secret, confirmed by a code, recovery codes
 * shown once), each new page checked with axe-core at desktop and phone sizes; and the device flow
 * (whose sign-in and consent are the same pages an OAuth authorization uses) stopping at the second
 * factor, and at enrolment when the workspace requires one, before the consent page.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, test } from 'node:test';
import * as oc from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from '../support/axe.ts';
import { newPerson, PASSWORD, type Stack } from '../support/stack.ts';
import { consent, shot, signInOnPage, startStackAndBrowser, stopStackAndBrowser } from './browser.ts';

let stack: Stack;
let browser: Browser;
before(async () => ({ stack, browser } = await startStackAndBrowser()));
after(() => stopStackAndBrowser(stack, browser));

const PHONE = { width: 375, height: 667 };

function base32(s: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of s.replace(/[\s=]/g, '').toUpperCase()) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  return Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
}
/** RFC 6238 (HMAC-SHA-1, 30 s, 6 digits) with RFC 4226 §5.3's truncation. */
function totp(secret: string, step: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', base32(secret)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}
const stepNow = () => Math.floor(Date.now() / 30_000);

async function noViolations(page: Page, what: string): Promise<void> {
  assert.deepEqual(await axeViolations(page), [], `${what}: axe-core violations`);
}

/** On the enrolment page: reads the secret, types its code; returns the secret and the recovery codes shown. */
async function enrolOnPage(page: Page, name: string): Promise<{ secret: string; codes: string[] }> {
  await page.waitForSelector('#secret');
  assert.ok(await page.isVisible('img[src^="data:image/svg+xml;base64,"]'), 'the QR code is shown');
  const secret = ((await page.textContent('#secret')) ?? '').replace(/\s/g, '');
  await noViolations(page, 'enrolment page');
  await shot(page, `${name}-enrol`);
  await page.fill('#code', totp(secret, stepNow()));
  await page.click('button[type=submit]');
  await page.waitForSelector('.recovery-codes');
  await noViolations(page, 'recovery codes page');
  await shot(page, `${name}-recovery-codes`);
  const codes = (await page.$$eval('.recovery-codes code', (els) => els.map((e) => e.textContent ?? ''))).filter(Boolean);
  return { secret, codes };
}

for (const [size, viewport] of [
  ['desktop', undefined],
  ['phone', PHONE],
] as const) {
  test(`${size}: enrolment on the account page, then sign-in asks for the code; a replayed code is refused`, async () => {
    const who = await newPerson(stack, `mfa-${size}`);
    const context = await browser.newContext(viewport ? { viewport, isMobile: true, hasTouch: true } : {});
    try {
      const page = await context.newPage();
      await page.goto(`${stack.authUrl}/signin?return=${encodeURIComponent('/dashboard')}`);
      await signInOnPage(page, who.email, PASSWORD);
      await page.waitForURL(/\/dashboard/);
      await page.goto(`${stack.authUrl}/factors/totp`);
      const { secret, codes } = await enrolOnPage(page, `mfa-${size}`);
      assert.equal(codes.length, 10);
      await page.goto(`${stack.authUrl}/factors`);
      await noViolations(page, 'factors page');
      await page.context().clearCookies();

      await page.goto(`${stack.authUrl}/signin?return=${encodeURIComponent('/dashboard')}`);
      await signInOnPage(page, who.email, PASSWORD);
      await page.waitForURL(/\/signin\/factor$/);
      await noViolations(page, 'second-factor page');
      await shot(page, `mfa-${size}-factor`);
      const code = totp(secret, stepNow() + 1);
      await page.fill('#code', code);
      await page.click('form[action="/signin/factor"] button[type=submit]');
      await page.waitForURL(/\/dashboard/);

      await page.context().clearCookies();
      await page.goto(`${stack.authUrl}/signin`);
      await signInOnPage(page, who.email, PASSWORD);
      await page.waitForURL(/\/signin\/factor$/);
      await page.fill('#code', code);
      await page.click('form[action="/signin/factor"] button[type=submit]');
      await page.waitForSelector('.error');
      assert.match((await page.textContent('.error')) ?? '', /not right, or was used already/);
    } finally {
      await context.close();
    }
  });
}

/** Types the device's code at the verification page, as svc-cli's person does. */
async function enterCode(page: Page, uri: string, code: string): Promise<void> {
  await page.goto(uri);
  await page.fill('#user_code', code);
  await page.click('button[type=submit]');
}

/** A device code of `clientId` and its polling, while `person` drives the page. */
async function deviceFlow(clientId: string, person: (page: Page) => Promise<void>) {
  const config = await oc.discovery(new URL(stack.authUrl), clientId, undefined, oc.None(), {
    algorithm: 'oauth2',
    execute: [oc.allowInsecureRequests],
  });
  const dar = await oc.initiateDeviceAuthorization(config, {});
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const [tokens] = await Promise.all([
      oc.pollDeviceAuthorizationGrant(config, dar, {}),
      enterCode(page, dar.verification_uri, dar.user_code).then(() => person(page)),
    ]);
    return tokens;
  } finally {
    await context.close();
  }
}

test('device flow: a person with a factor gives it after the password, before the consent page', async () => {
  const who = await newPerson(stack, 'mfa-device');
  await stack.accounts.factors.beginTotp(who.user.id, 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP');
  assert.ok(Array.isArray(await stack.accounts.factors.confirmTotp(who.user.id, 0)));
  const tokens = await deviceFlow('svc-cli', async (page) => {
    await signInOnPage(page, who.email, PASSWORD);
    await page.waitForURL(/\/signin\/factor$/);
    assert.equal(await page.isVisible('form[action$="/consent"]'), false);
    await page.fill('#code', totp('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', stepNow()));
    await page.click('form[action="/signin/factor"] button[type=submit]');
    await consent(page, { kind: 'personal' }, 'mfa-device-consent');
    await page.waitForSelector('main h1');
  });
  assert.ok(tokens.access_token);
});

test('device flow under the workspace policy: a member without a factor enrols before the consent page', async () => {
  const owner = await newPerson(stack, 'mfa-owner');
  const member = await newPerson(stack, 'mfa-member');
  await stack.accounts.workspaces.setRole(owner.slug, member.user.id, 'VIEWER');
  await stack.accounts.factors.setRequired(owner.user.workspace, true);
  const tokens = await deviceFlow('svc-cli', async (page) => {
    await signInOnPage(page, member.email, PASSWORD);
    await page.waitForURL(/\/signin\/enrol$/);
    assert.match((await page.textContent('main')) ?? '', /Your workspace requires a second factor/);
    await enrolOnPage(page, 'mfa-policy');
    await page.click('text=I have saved them, continue');
    await consent(page, { kind: 'personal' }, 'mfa-policy-consent');
    await page.waitForSelector('main h1');
  });
  assert.ok(tokens.access_token);
  assert.equal(await stack.accounts.factors.hasAny(member.user.id), true);
});
