/**
 * The person in the browser: Debian's chromium driven by playwright-core, with the arguments that
 * run it headless on a server (CONTRIBUTING.md "Browser tests"). Helpers sign in, enter or
 * confirm a device code, and approve the consent page of each profile, taking a screenshot of
 * every page under test-output/screenshots/ for a reviewer.
 */
import { join } from 'node:path';
import * as oc from 'openid-client';
import { chromium, type Browser, type Page } from 'playwright-core';
import { outputDir, outsideLoopBudget } from '@svc/testkit';
import { startStack, type Stack } from '../support/stack.ts';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
}

export async function shot(page: Page, name: string): Promise<void> {
  const dir = await outputDir('screenshots');
  await screenshotAt(page, join(dir, `${name}.png`));
}

/**
 * A full-page screenshot saved at `path`. The picture comes back to this process as one message
 * of megabytes to decode and write: the test's own work, not a request the services serve, so it
 * is kept outside the loop budget (docs/conventions.md "Tests").
 */
export async function screenshotAt(page: Page, path: string): Promise<void> {
  await outsideLoopBudget(() => page.screenshot({ path, fullPage: true }));
}

/**
 * Waits for `selector` on `page`; when it does not come, the error says where the page is and what
 * it shows (and a screenshot `<name>-missing` is kept), so a failure on a loaded machine can be read.
 */
async function waitShown(page: Page, selector: string, name: string): Promise<void> {
  try {
    await page.waitForSelector(selector);
  } catch (err) {
    const text = await page.textContent('body').catch(() => null);
    await shot(page, `${name}-missing`).catch(() => undefined);
    throw new Error(
      `${selector} never appeared on ${page.url()}; the page shows: ${(text ?? '(nothing)').replace(/\s+/g, ' ').trim().slice(0, 500)}`,
      { cause: err },
    );
  }
}

/**
 * Opens a dashboard key's row menu (a <details>) and follows one of its actions, returning once the
 * action's page has loaded: a check run while the old page is still being replaced reads no document.
 */
export async function openKeyAction(page: Page, id: string, action: string): Promise<void> {
  const link = page.locator(`a[href$="/keys/${id}/${action}"]`);
  await page.locator('tr', { has: link }).locator('details.menu summary').click();
  await Promise.all([page.waitForURL((url) => url.pathname.endsWith(`/keys/${id}/${action}`)), link.click()]);
}

export async function signInOnPage(page: Page, email: string, password: string, shotName?: string): Promise<void> {
  await page.waitForSelector('form[action="/signin"]');
  await page.fill('#email', email);
  await page.fill('#password', password);
  if (shotName) await shot(page, shotName);
  await page.click('form[action="/signin"] button[type=submit]');
}

export type Approval =
  | { kind: 'personal' }
  | { kind: 'select'; project: string; level?: string }
  | { kind: 'provision' }
  | { kind: 'approve' }
  | { kind: 'deny' };

/** Approves (or denies) on the consent page currently shown. */
export async function consent(page: Page, approval: Approval, shotName: string): Promise<void> {
  await page.waitForSelector('form[action$="/consent"], form[action$="/abort"]');
  if (approval.kind === 'personal') await page.check('input[name=confirm_key]');
  if (approval.kind === 'select') await page.check(`input[name=project][value="${approval.project}"]`);
  if (approval.kind === 'select' && approval.level) await page.selectOption('#level', approval.level);
  await shot(page, shotName);
  const form = approval.kind === 'deny' ? 'abort' : 'consent';
  await page.click(`form[action$="/${form}"] button[type=submit]`);
}

export interface DeviceApproval {
  verificationUri: string;
  verificationUriComplete: string;
  userCode: string;
  email: string;
  password: string;
  approval: Approval;
  /** Screenshot name prefix. */
  name: string;
  /** Type the code at the base URI (svc-cli) instead of confirming the prefilled one. */
  typeCode: boolean;
  /** Sign in before entering the code (else the code comes first and sign-in follows). */
  signInFirst?: { authUrl: string };
}

/** The whole person's side of a device flow; resolves on the success page. */
export async function approveDevice(browser: Browser, a: DeviceApproval): Promise<string> {
  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    if (a.signInFirst) {
      await page.goto(`${a.signInFirst.authUrl}/signin`);
      await signInOnPage(page, a.email, a.password, `${a.name}-00-signin`);
      await page.waitForURL(`${a.signInFirst.authUrl}/`);
    }
    await page.goto(a.typeCode ? a.verificationUri : a.verificationUriComplete);
    if (a.typeCode) {
      await waitShown(page, '#user_code', `${a.name}-01-enter-code`);
      await page.fill('#user_code', a.userCode.toLowerCase().replace('-', ' '));
      await shot(page, `${a.name}-01-enter-code`);
      await page.click('button[type=submit]');
    } else {
      await waitShown(page, '.code-shown', `${a.name}-01-confirm-code`);
      await shot(page, `${a.name}-01-confirm-code`);
      await page.click('button[name=confirm]');
    }
    if (!a.signInFirst) await signInOnPage(page, a.email, a.password, `${a.name}-02-signin`);
    await consent(page, a.approval, `${a.name}-03-consent`);
    await page.waitForSelector('main h1');
    await shot(page, `${a.name}-04-done`);
    return (await page.textContent('main')) ?? '';
  } finally {
    await context.close();
  }
}

/**
 * A device flow end to end: openid-client (the client `clientId`) asks for a code and polls while
 * the person signs in and answers in chromium. The token response, the text of the page the
 * person ends on, and the client's configuration (for refreshing).
 */
export async function runDeviceFlow(
  browser: Browser,
  a: Omit<DeviceApproval, 'verificationUri' | 'verificationUriComplete' | 'userCode' | 'typeCode' | 'signInFirst'> & {
    authUrl: string;
    clientId: string;
    typeCode?: boolean;
    signInFirst?: boolean;
    /** Extra device-authorization parameters, and extra polling parameters. */
    extra?: Record<string, string>;
    poll?: Record<string, string>;
  },
): Promise<{ tokens: oc.TokenEndpointResponse; page: string; config: oc.Configuration }> {
  const config = await oc.discovery(new URL(a.authUrl), a.clientId, undefined, oc.None(), {
    algorithm: 'oauth2',
    execute: [oc.allowInsecureRequests],
  });
  const dar = await oc.initiateDeviceAuthorization(config, a.extra ?? {});
  const [tokens, page] = await Promise.all([
    oc.pollDeviceAuthorizationGrant(config, dar, a.poll ?? {}),
    approveDevice(browser, {
      verificationUri: dar.verification_uri,
      verificationUriComplete: dar.verification_uri_complete ?? '',
      userCode: dar.user_code,
      email: a.email,
      password: a.password,
      approval: a.approval,
      name: a.name,
      typeCode: a.typeCode ?? false,
      ...(a.signInFirst ? { signInFirst: { authUrl: a.authUrl } } : {}),
    }),
  ]);
  return { tokens, page, config };
}

/** The stack and chromium, for a test file's before(); stopStackAndBrowser() for its after(). */
export async function startStackAndBrowser(...args: Parameters<typeof startStack>): Promise<{ stack: Stack; browser: Browser }> {
  const stack = await startStack(...args);
  return { stack, browser: await launchBrowser() };
}

export async function stopStackAndBrowser(stack: Stack | undefined, browser: Browser | undefined): Promise<void> {
  await browser?.close();
  await stack?.close();
}
