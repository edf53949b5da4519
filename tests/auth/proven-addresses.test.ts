/**
 * An address is proven before it is trusted (docs/auth-service.md "Proven addresses"): a person
 * who signed up with an address they never confirmed gets no credential by any path, driven in
 * chromium as a person would, each path tried with the official client library (openid-client).
 * Each path then works once the address is confirmed through the mailed link (real SMTP), so the
 * refusal is the address's doing and not a broken flow.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as oc from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import type { User } from '@svc/accounts';
import { startSmtpInbox, waitFor, type SmtpInbox } from '@svc/testkit';
import { axeViolations } from '../support/axe.ts';
import { PASSWORD, type Stack } from '../support/stack.ts';
import { consent, shot, signInOnPage, startStackAndBrowser, stopStackAndBrowser, type Approval } from './browser.ts';

const REDIRECT = 'http://127.0.0.1:45998/callback';
let stack: Stack;
let browser: Browser;
let smtp: SmtpInbox;

before(async () => {
  smtp = await startSmtpInbox();
  ({ stack, browser } = await startStackAndBrowser({ SMTP_URL: smtp.url }));
});
after(async () => {
  await stopStackAndBrowser(stack, browser);
  await smtp.close();
});

/**
 * Someone who signed up with an address and never opened the confirmation mail (made through the
 * store, so that each path below is what is tried; sign-up itself is in new-password.test.ts).
 */
async function unconfirmed(prefix: string): Promise<{ user: User; email: string; slug: string }> {
  const email = `${prefix}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const user = await stack.accounts.users.create({ email, password: PASSWORD });
  const slug = `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
  await stack.accounts.workspaces.createProject({ slug, workspace: user.workspace });
  return { user, email, slug };
}

/** The confirmation link of the latest mail to `email`, opened and confirmed in `page`. */
async function confirmFromMail(page: Page, email: string, mailsBefore: number): Promise<void> {
  const mail = await waitFor(() => smtp.mails.slice(mailsBefore).find((m) => m.to === email && /verify-email\?token=/.test(m.text)), {
    message: `a confirmation mail to ${email}`,
  });
  const link = /(http:\/\/127\.0\.0\.1:\d+\/verify-email\?token=[A-Za-z0-9_-]+)/.exec(mail.text)?.[1] ?? '';
  await page.goto(link);
  await page.click('form[action="/verify-email"] button[type=submit]');
  await page.waitForSelector('text=is confirmed');
}

/**
 * On the page the unconfirmed person reached instead of consent: it is the "confirm first" page
 * (403), and a consent form posted anyway (with the page's own CSRF token) is refused the same way.
 */
async function assertConfirmFirst(page: Page, name: string): Promise<void> {
  await page.waitForSelector('text=Confirm your email address first');
  await shot(page, `${name}-confirm-first`);
  assert.deepEqual(await axeViolations(page), []);
  assert.equal(await page.locator('form[action$="/consent"]').count(), 0, 'no Approve button');
  // Posted from the browser's own cookies but outside the page: the pages' CSP allows no fetch.
  const form = await page.evaluate(() => {
    const resend = document.querySelector<HTMLFormElement>('form[action$="/confirm-email"]')!;
    const fields = Object.fromEntries(new FormData(resend) as unknown as Iterable<[string, string]>);
    return { action: resend.action.replace(/\/confirm-email$/, '/consent'), fields };
  });
  const res = await page.context().request.post(form.action, { form: { ...form.fields, confirm_key: 'yes' }, maxRedirects: 0 });
  const status = res.status();
  assert.equal(status, 403, 'a consent posted by hand is refused');
}

/** Starts a device flow of `clientId`; the person enters the code in a new browser page, signed in as `email`. */
async function deviceFlowUntilConsent(clientId: string, email: string, extra: Record<string, string> = {}) {
  const config = await oc.discovery(new URL(stack.authUrl), clientId, undefined, oc.None(), {
    algorithm: 'oauth2',
    execute: [oc.allowInsecureRequests],
  });
  const dar = await oc.initiateDeviceAuthorization(config, extra);
  const context = await browser.newContext();
  const page = await context.newPage();
  // svc-cli's code is typed, never prefilled (docs/auth-service.md "Client profiles").
  await page.goto(clientId === 'svc-cli' ? dar.verification_uri : (dar.verification_uri_complete ?? ''));
  if (clientId === 'svc-cli') {
    await page.fill('#user_code', dar.user_code);
    await page.click('button[type=submit]');
  } else await page.click('button[name=confirm]');
  await signInOnPage(page, email, PASSWORD);
  return { config, dar, page, close: () => context.close() };
}

const DEVICE_PATHS: { path: string; clientId: string; extra?: Record<string, string>; approval: (slug: string) => Approval }[] = [
  { path: 'svc-cli device flow: a personal key', clientId: 'svc-cli', approval: () => ({ kind: 'personal' }) },
  {
    path: 'create-svc auto-provisioning: a project api_key',
    clientId: 'create-svc',
    extra: { auto_provision: 'true' },
    approval: () => ({ kind: 'provision' }),
  },
  { path: 'svc-mcp device flow: an OAuth token', clientId: 'svc-mcp', approval: (slug) => ({ kind: 'select', project: slug }) },
];

for (const p of DEVICE_PATHS) {
  test(`unconfirmed address, ${p.path}: refused with the way to confirm; after confirming, issued`, async () => {
    const who = await unconfirmed(p.clientId);
    const flow = await deviceFlowUntilConsent(p.clientId, who.email, p.extra);
    try {
      await assertConfirmFirst(flow.page, `proven-${p.clientId}`);
      // Nothing was issued: no personal key, no project key, no OAuth grant.
      assert.deepEqual(await stack.accounts.keys.listForUser(who.user.id), []);
      assert.equal((await stack.accounts.keys.listForProject(who.slug)).length, 0);
      assert.deepEqual(await stack.accounts.oauthGrants.listForUser(who.user.id), []);

      // The way forward: send the link again, confirm, continue, approve.
      const mailsBefore = smtp.mails.length;
      await flow.page.click('form[action$="/confirm-email"] button[type=submit]');
      await flow.page.waitForSelector('text=We sent a new link');
      const back = flow.page.url();
      const confirmPage = await flow.page.context().newPage();
      await confirmFromMail(confirmPage, who.email, mailsBefore);
      await flow.page.goto(back.replace(/\/confirm-email$/, ''));
      await consent(flow.page, p.approval(who.slug), `proven-${p.clientId}-after`);
      const tokens = (await oc.pollDeviceAuthorizationGrant(flow.config, flow.dar)) as unknown as Record<string, unknown>;
      assert.ok(tokens['access_token'], 'issued once the address is confirmed');
    } finally {
      await flow.close();
    }
  });
}

test('unconfirmed address, authorization code (a registered MCP client): refused with the way to confirm', async () => {
  const who = await unconfirmed('code');
  const config = await oc.dynamicClientRegistration(
    new URL(stack.authUrl),
    { client_name: 'proven e2e client', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
    oc.None(),
    { algorithm: 'oauth2', execute: [oc.allowInsecureRequests] },
  );
  const verifier = oc.randomPKCECodeVerifier();
  const url = oc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'mcp',
    code_challenge: await oc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: oc.randomState(),
    resource: `${stack.baseUrl}/mcp/${who.slug}`,
  });
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    let redirected = false;
    await page.route(`${REDIRECT}**`, async (route) => {
      redirected = true;
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>done</p>' });
    });
    await page.goto(url.href);
    await signInOnPage(page, who.email, PASSWORD);
    await assertConfirmFirst(page, 'proven-auth-code');
    assert.equal(redirected, false, 'no code reached the client');
    assert.deepEqual(await stack.accounts.oauthGrants.listForUser(who.user.id), []);
  } finally {
    await context.close();
  }
});

test('a grant approved before confirmation was required yields no key at the token endpoint', async () => {
  // As if approved under the old rules: a device code for svc-cli whose grant is already saved.
  const who = await unconfirmed('legacy');
  const flow = await deviceFlowUntilConsent('svc-cli', who.email);
  try {
    await assertConfirmFirst(flow.page, 'proven-legacy');
    // Confirm, approve, then take the confirmation back before the client polls.
    const mailsBefore = smtp.mails.length;
    await flow.page.click('form[action$="/confirm-email"] button[type=submit]');
    const confirmPage = await flow.page.context().newPage();
    await confirmFromMail(confirmPage, who.email, mailsBefore);
    await flow.page.goto(flow.page.url().replace(/\/confirm-email$/, ''));
    await consent(flow.page, { kind: 'personal' }, 'proven-legacy-approve');
    await flow.page.waitForSelector('main h1');
    await stack.client.hdel(`svc:user:${who.user.id}`, 'emailVerifiedAt');
    await assert.rejects(oc.pollDeviceAuthorizationGrant(flow.config, flow.dar), (err: unknown) => {
      assert.equal((err as { error?: string }).error, 'access_denied');
      return true;
    });
    assert.deepEqual(
      (await stack.accounts.keys.listForUser(who.user.id)).filter((k) => !k.revoked),
      [],
      'no personal key was made',
    );
  } finally {
    await flow.close();
  }
});
