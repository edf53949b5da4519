/**
 * The person's side of authorization code + PKCE S256 in chromium: build the authorization URL
 * with openid-client (or take one a client built itself), sign in when asked, approve, and catch
 * the redirect to the client's (loopback) redirect URI. Returns what the token exchange needs.
 */
import * as oc from 'openid-client';
import type { BrowserContext, Page } from 'playwright-core';
import { PASSWORD } from '../support/stack.ts';
import { consent, signInOnPage } from './browser.ts';

export interface Authorization {
  callback: URL;
  verifier: string;
  state: string;
}

export async function authorizeInBrowser(
  context: BrowserContext,
  config: oc.Configuration,
  a: {
    redirect: string;
    resource: string;
    email: string;
    name: string;
    /** The scope asked for; `mcp` unless given; '' sends no scope parameter at all. */
    scope?: string;
    onConsentPage?: (page: Page) => Promise<void>;
    /** Called on the sign-in page, when the browser is sent there. */
    onSignInPage?: (page: Page) => Promise<void>;
  },
): Promise<Authorization> {
  const verifier = oc.randomPKCECodeVerifier();
  const state = oc.randomState();
  const url = oc.buildAuthorizationUrl(config, {
    redirect_uri: a.redirect,
    scope: a.scope ?? 'mcp',
    code_challenge: await oc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    resource: a.resource,
  });
  if (a.scope === '') url.searchParams.delete('scope');
  return { callback: await approveInBrowser(context, url, a), verifier, state };
}

/**
 * The browser half alone, for a client that built its authorization URL itself: open `url`, sign in
 * when asked, approve, and return the redirect the client receives.
 */
export async function approveInBrowser(
  context: BrowserContext,
  url: URL,
  a: {
    redirect: string;
    email: string;
    name: string;
    onConsentPage?: (page: Page) => Promise<void>;
    onSignInPage?: (page: Page) => Promise<void>;
  },
): Promise<URL> {
  const page = await context.newPage();
  let callback = '';
  await page.route(`${a.redirect}**`, async (route) => {
    callback = route.request().url();
    await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>done</p>' });
  });
  await page.goto(url.href);
  if (page.url().includes('/signin')) {
    await a.onSignInPage?.(page);
    await signInOnPage(page, a.email, PASSWORD, `${a.name}-01-signin`);
  }
  await page.waitForSelector('form[action$="/consent"]');
  await a.onConsentPage?.(page);
  await consent(page, { kind: 'approve' }, `${a.name}-02-approve`);
  await page.waitForURL(`${a.redirect}**`);
  await page.close();
  return new URL(callback);
}
