/**
 * The consent page a registered client leads to, in chromium at desktop and phone sizes: the
 * "Not verified by svc" mark, the redirect URI's host, a client name stripped of bidi characters,
 * cut at 80 characters and never wider than the screen, "Not you? Sign out", and no axe-core
 * violations. The name is planted in the stored client, as a metadata document or a registration
 * made before the name limits could bring it. And svc-cli's personal-key page: the key's reach,
 * expiry and replacement listed, one box that confirms them, required by the server too.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as oc from 'openid-client';
import type { Browser } from 'playwright-core';
import { oidcRecordKey } from '@svc/accounts';
import { PASSWORD, startStack, type Stack } from '../support/stack.ts';
import { authorizeInBrowser } from './authorize.ts';
import { axeViolations } from '../support/axe.ts';
import { launchBrowser, shot, signInOnPage } from './browser.ts';

const REDIRECT = 'http://127.0.0.1:45997/callback';
const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 375, height: 667 },
];
let stack: Stack;
let browser: Browser;

before(async () => {
  stack = await startStack();
  browser = await launchBrowser();
});
after(async () => {
  await browser.close();
  await stack.close();
});

test('consent for a registered client: mark, host, a cleaned name that fits, sign-out link, accessible', async () => {
  const tag = Math.random().toString(36).slice(2, 8);
  const email = `consent-${tag}@example.com`;
  const user = await stack.accounts.users.create({ emailVerified: true, email, password: PASSWORD });
  const slug = `consent-${tag}`;
  await stack.accounts.workspaces.createProject({ slug, workspace: user.workspace });
  const config = await oc.dynamicClientRegistration(
    new URL(stack.authUrl),
    { client_name: 'Consent check', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
    oc.None(),
    { algorithm: 'oauth2', execute: [oc.allowInsecureRequests] },
  );
  const key = oidcRecordKey('Client', config.clientMetadata().client_id);
  const stored = JSON.parse((await stack.client.hget(key, 'payload')) ?? '{}') as Record<string, unknown>;
  stored['client_name'] = `\u202eLongToolName${'W'.repeat(200)}`;
  await stack.client.hset(key, 'payload', JSON.stringify(stored));

  for (const size of SIZES) {
    const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
    await authorizeInBrowser(context, config, {
      redirect: REDIRECT,
      resource: `${stack.baseUrl}/mcp/${slug}`,
      email,
      name: `consent-page-${size.name}`,
      onConsentPage: async (page) => {
        const text = await page.innerText('main');
        assert.match(text, /Not verified by svc/);
        assert.match(text, /return to 127\.0\.0\.1:45997/);
        assert.match(text, /Not you\? Sign out/);
        const name = await page.innerText('bdi');
        assert.ok(!name.includes('\u202e'));
        assert.ok(name.startsWith('LongToolName'));
        assert.equal([...name].length, 80);
        assert.ok(name.endsWith('…'));
        const fits = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
        assert.ok(fits, `the page is wider than the ${size.name} screen`);
        assert.deepEqual(await axeViolations(page), []);
        await shot(page, `consent-page-${size.name}`);
      },
    });
    await context.close();
  }
});

test('svc-cli consent: one box confirms the reach and expiry of the key, listed above it; refused without it; accessible at both sizes', async () => {
  const tag = Math.random().toString(36).slice(2, 8);
  const email = `consent-cli-${tag}@example.com`;
  const user = await stack.accounts.users.create({ emailVerified: true, email, password: PASSWORD });
  await stack.accounts.workspaces.createProject({ slug: `consent-cli-${tag}`, workspace: user.workspace });
  const config = await oc.discovery(new URL(stack.authUrl), 'svc-cli', undefined, oc.None(), {
    algorithm: 'oauth2',
    execute: [oc.allowInsecureRequests],
  });
  for (const size of SIZES) {
    const dar = await oc.initiateDeviceAuthorization(config, {});
    const polling = oc.pollDeviceAuthorizationGrant(config, dar);
    const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
    const page = await context.newPage();
    // svc-cli's code is typed at the plain verification URI (docs/contract.md "Device flow pages").
    await page.goto(dar.verification_uri);
    await page.fill('#user_code', dar.user_code);
    await page.click('button[type=submit]');
    await signInOnPage(page, email, PASSWORD);
    await page.waitForSelector('form[action$="/consent"]');

    const text = await page.innerText('main');
    assert.match(text, /every project you can access/);
    assert.match(text, /expires after 30 days/);
    assert.match(text, /replaces your previous key/);
    assert.equal(await page.locator('form[action$="/consent"] input[type=checkbox]').count(), 1, 'one box to tick');
    const box = page.getByLabel(/I understand: this key acts as me in every project I can access, for 30 days/);
    assert.equal(await box.getAttribute('required'), '');
    const fits = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    assert.ok(fits, `the page is wider than the ${size.name} screen`);
    assert.deepEqual(await axeViolations(page, { wcag22: true }), []);
    await shot(page, `consent-personal-key-${size.name}`);

    // Sent without the box (the browser would not send it: the box is required): the same page, saying why.
    const form = await page.evaluate(() => {
      const f = document.querySelector<HTMLFormElement>('form[action$="/consent"]')!;
      return { action: f.action, fields: Object.fromEntries(new FormData(f) as unknown as Iterable<[string, string]>) };
    });
    const refused = await context.request.post(form.action, { form: form.fields, maxRedirects: 0 });
    assert.equal(refused.status(), 400, (await refused.text()).replace(/\s+/g, ' ').slice(0, 2000));
    assert.match(await refused.text(), /Tick the box to confirm what this key can do/);

    await box.check();
    await page.click('form[action$="/consent"] button[type=submit]');
    await page.waitForSelector('text=Device connected');
    const tokens = await polling;
    assert.equal(tokens['key_type'], 'user');
    await context.close();
  }
});
