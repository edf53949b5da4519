/**
 * The person's side of a single sign-on in chromium (docs/auth-service.md "Single sign-on"): svc's
 * sign-in page, "Continue with single sign-on", the company's login page (tests/support/company-idp.ts),
 * and back at svc.
 */
import type { Page } from 'playwright-core';

/** From svc's sign-in page (returning to `/dashboard`): SSO for `email`, the company's login as `login`. */
export async function ssoSignIn(
  page: Page,
  authUrl: string,
  email: string,
  login: string,
  atProvider?: (page: Page) => Promise<void>,
): Promise<void> {
  await page.goto(`${authUrl}/signin?return=${encodeURIComponent('/dashboard')}`);
  await ssoFromSignInPage(page, authUrl, email, login, atProvider);
}

/** On the sign-in page shown (whatever sent the browser there): SSO for `email`, the company's login as `login`, back at svc. */
export async function ssoFromSignInPage(
  page: Page,
  authUrl: string,
  email: string,
  login: string,
  atProvider?: (page: Page) => Promise<void>,
): Promise<void> {
  await page.waitForSelector('form[action="/signin"]');
  await page.fill('#email', email);
  await page.click('button[name=sso]');
  await page.waitForSelector('text=Company sign-in').catch(async (err: unknown) => {
    throw new Error(`not at the company's sign-in: ${page.url()} ${(await page.content()).slice(0, 1500)}`, { cause: err });
  });
  await atProvider?.(page);
  await page.fill('#login', login);
  await page.click('button[type=submit]');
  // Back at svc: the page the sign-in returns to, or the callback's refusal.
  await page.waitForURL((u) => u.origin === authUrl);
}
