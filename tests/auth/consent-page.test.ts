/**
 * The consent page a registered client leads to, in chromium at desktop and phone sizes: the
 * "Not verified by svc" mark, the redirect URI's host, a client name stripped of bidi characters,
 * cut at 80 characters and never wider than the screen, "Not you? Sign out", and no axe-core
 * violations. The name is planted in the stored client, as a metadata document or a registration
 * made before the name limits could bring it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as oc from 'openid-client';
import type { Browser } from 'playwright-core';
import { oidcRecordKey } from '@svc/accounts';
import { PASSWORD, startStack, type Stack } from '../support/stack.ts';
import { authorizeInBrowser } from './authorize.ts';
import { axeViolations } from '../support/axe.ts';
import { launchBrowser, shot } from './browser.ts';

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
