/**
 * Single sign-on through a company's OpenID provider (docs/auth-service.md "Single sign-on"),
 * driven in chromium against a second, real oidc-provider with its own issuer: the owner sets the
 * provider up and proves the domain (a test DNS resolver), a first sign-in makes the account and
 * its role from the groups claim, the policy refuses passwords, a person removed at the provider is
 * refused at their next sign-in, and each hostile answer (a replayed state, a forged nonce, an ID
 * token of another issuer, an unverified address) is refused with a sentence saying why.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import * as oc from 'openid-client';
import { createSsoStore } from '@svc/sso';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from '../support/axe.ts';
import { PASSWORD, type Stack } from '../support/stack.ts';
import { startCompanyIdp, startMixUpIssuer, type CompanyIdp } from '../support/company-idp.ts';
import { consent, shot, signInOnPage, startStackAndBrowser, stopStackAndBrowser } from './browser.ts';
import { ssoFromSignInPage as fromSignInPageThroughSso, ssoSignIn as signInThroughSso } from './sso-pages.ts';

/** The SSO session bound of @svc/sso (packages/sso/src/bounds.ts) (SSO_SESSION_MAX_SECONDS), read off the session's TTL. */
const SSO_SESSION_MAX_SECONDS = 8 * 3600;

const dns = new Map<string, string[]>();
async function resolveTxt(name: string): Promise<string[][]> {
  const records = dns.get(name);
  if (!records) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  // A long value arrives in chunks of at most 255 characters (RFC 1035 §3.3.14).
  return records.map((r) => [r.slice(0, 10), r.slice(10)]);
}

let stack: Stack;
let browser: Browser;
let idp: CompanyIdp;
let ownerEmail: string;

before(async () => {
  ({ stack, browser } = await startStackAndBrowser({ SSO_PRIVATE_ISSUERS: 'allow' }, { authResolveTxt: resolveTxt }));
  idp = await startCompanyIdp(`${stack.authUrl}/sso/callback`);
  ownerEmail = `owner-${Math.random().toString(36).slice(2, 8)}@elsewhere.test`;
  const owner = await stack.accounts.users.create({ email: ownerEmail, password: PASSWORD, emailVerified: true });
  await stack.accounts.workspaces.create({ slug: 'acme', owner: owner.id });
  await stack.accounts.workspaces.createProject({ slug: 'acme-docs', workspace: 'acme' });
  await stack.accounts.workspaces.createProject({ slug: 'acme-wiki', workspace: 'acme' });
});
after(async () => {
  await idp?.close();
  await stopStackAndBrowser(stack, browser);
});

async function signedInPage(email: string, path: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${stack.authUrl}${path}`);
  await signInOnPage(page, email, PASSWORD);
  await page.waitForURL((u) => u.pathname.startsWith(path));
  return page;
}

/** The owner's SSO page: provider, domain proven through DNS, policy; the sentence of each step. */
async function setUpSso(
  page: Page,
  ws: string,
  o: { issuer: string; domain: string; groups?: string; publish?: boolean },
): Promise<string> {
  await page.goto(`${stack.authUrl}/dashboard/workspaces/${ws}/sso`);
  await page.fill('#issuer', o.issuer);
  await page.fill('#client_id', idp.clientId);
  await page.fill('#client_secret', idp.clientSecret);
  await page.click('form[action$="/sso/provider"] button[type=submit]');
  await page.waitForSelector('text=Provider saved');
  await page.fill('#domain', o.domain);
  await page.click('form[action$="/sso/domains"] button[type=submit]');
  await page.waitForSelector('text=Domain claimed');
  const value = /svc-sso=[A-Za-z0-9_-]+/.exec(await page.content())?.[0] ?? '';
  assert.ok(value, 'the page shows the TXT record to publish');
  if (o.publish === false) return value;
  dns.set(`_svc-sso.${o.domain}`, ['v=spf1 -all', value]);
  await page.click(`form[action$="/sso/domains/verify"] button[type=submit]`);
  await page.waitForSelector('text=Domain proven');
  if (o.groups !== undefined) {
    await page.fill('#group_roles', o.groups);
    await page.click('form[action$="/sso/policy"] button[type=submit]');
    await page.waitForSelector('text=Single sign-on policy saved');
  }
  return value;
}

/** The sign-in page's SSO step for `email`, then the company's login page as `login` (sso-pages.ts). */
const ssoSignIn = (page: Page, email: string, login: string, atProvider?: (page: Page) => Promise<void>) =>
  signInThroughSso(page, stack.authUrl, email, login, atProvider);
const ssoFromSignInPage = (page: Page, email: string, login: string) => fromSignInPageThroughSso(page, stack.authUrl, email, login);

/** Waits for a sentence on the page; a timeout says what the page said instead. */
async function expectText(page: Page, text: string): Promise<void> {
  await page.waitForSelector(`text=${text}`, { timeout: 10_000 }).catch(async (err: unknown) => {
    throw new Error(`"${text}" not shown at ${page.url()}: ${await page.locator('main').innerText()}`, { cause: err });
  });
}

async function auditActions(ws: string): Promise<string[]> {
  return (await stack.accounts.audit.page(ws, { limit: 100 })).entries.map((e) => e.action);
}

test('the owner sets SSO up: the secret is never shown back nor stored in clear, the domain is proven by DNS, one workspace per domain', async () => {
  const page = await signedInPage(ownerEmail, '/dashboard/workspaces/acme/sso');
  // A claim with no record published yet is not proven.
  await page.fill('#issuer', idp.issuer);
  await page.fill('#client_id', idp.clientId);
  await page.fill('#client_secret', idp.clientSecret);
  await page.click('form[action$="/sso/provider"] button[type=submit]');
  await page.waitForSelector('text=Provider saved');
  await page.fill('#domain', 'acme.test');
  await page.click('form[action$="/sso/domains"] button[type=submit]');
  await page.waitForSelector('text=Domain claimed');
  await page.click(`form[action$="/sso/domains/verify"] button[type=submit]`);
  await page.waitForSelector('text=No TXT record _svc-sso.acme.test');
  assert.equal(await stack.client.get('svc:sso:domain:acme.test'), null, 'an unproven claim takes no effect');
  await setUpSso(page, 'acme', { issuer: idp.issuer, domain: 'acme.test', groups: 'svc-admins=ADMIN\nwriters=EDITOR' });
  await shot(page, 'sso-settings');
  assert.deepEqual(await axeViolations(page), [], 'the settings page passes axe');
  assert.ok(!(await page.content()).includes(idp.clientSecret), 'the secret is not shown back');
  const stored = JSON.stringify(await stack.client.hgetall('svc:sso:config:acme'));
  assert.ok(!stored.includes(idp.clientSecret), 'the secret is stored sealed');
  assert.equal(await stack.client.get('svc:sso:domain:acme.test'), 'acme');
  const actions = await auditActions('acme');
  for (const a of ['sso.configured', 'sso.domain_claimed', 'sso.domain_verified', 'sso.policy_changed']) assert.ok(actions.includes(a), a);
  const entries = JSON.stringify((await stack.accounts.audit.page('acme', { limit: 100 })).entries);
  assert.ok(!entries.includes(idp.clientSecret), 'the audit log never holds the secret');

  // Another workspace cannot take a proven domain.
  const other = await stack.accounts.users.create({ email: `rival-${Date.now()}@elsewhere.test`, password: PASSWORD, emailVerified: true });
  await stack.accounts.workspaces.create({ slug: 'rival', owner: other.id });
  const rival = await signedInPage(other.email, '/dashboard/workspaces/rival/sso');
  await rival.fill('#domain', 'acme.test');
  await rival.click('form[action$="/sso/domains"] button[type=submit]');
  await rival.waitForSelector('text=acme.test is already proven by another workspace');
  // Nor change acme's settings.
  const res = await rival.goto(`${stack.authUrl}/dashboard/workspaces/acme/sso`);
  assert.equal(res?.status(), 403);
  await rival.context().close();
  await page.context().close();
});

test('a first SSO sign-in makes the account, with its role from the groups claim, in a session of at most SSO_SESSION_MAX_SECONDS; its state answers once', async () => {
  idp.directory.set('ada', { email: 'ada@acme.test', email_verified: true, groups: ['everyone', 'svc-admins'] });
  idp.directory.set('bob', { email: 'Bob@acme.test', email_verified: true });
  const page = await (await browser.newContext()).newPage();
  const callbacks: string[] = [];
  page.on('request', (r) => {
    if (r.url().startsWith(`${stack.authUrl}/sso/callback`)) callbacks.push(r.url());
  });
  await ssoSignIn(page, 'ada@acme.test', 'ada');
  assert.match(new URL(page.url()).pathname, /^\/dashboard/);
  await shot(page, 'sso-signed-in');
  const ada = await stack.accounts.users.findByEmail('ada@acme.test');
  assert.ok(ada, 'the account was made');
  assert.ok(ada.emailVerifiedAt !== null, 'the provider proved the address');
  // The provider's subject (its login name here) is linked to the account within acme: an ID-JAG of
  // that issuer names the person by it (docs/auth-service.md "Enterprise-managed authorization").
  const links = createSsoStore(stack.client, stack.config.cookieKeys);
  assert.equal(await links.linkedUser('acme', idp.issuer, 'ada'), ada.id, 'the subject is linked to the account');
  assert.equal(await links.linkedUser('rival', idp.issuer, 'ada'), null, 'within acme only');
  for (const slug of ['acme-docs', 'acme-wiki']) {
    assert.equal(await stack.accounts.workspaces.roleOf(ada.id, (await stack.accounts.workspaces.getProject(slug))!), 'ADMIN');
  }
  const session = (await page.context().cookies()).find((c) => c.name === 'svc_session');
  assert.ok(session);
  const ttl = await stack.client.ttl(
    `svc:oidc:web-session:${createHash('sha256').update(decodeURIComponent(session.value)).digest('hex')}`,
  );
  assert.ok(ttl > SSO_SESSION_MAX_SECONDS - 120 && ttl <= SSO_SESSION_MAX_SECONDS, `the SSO session lives ${ttl} s`);

  // The same answer again (a replayed state) is refused.
  assert.equal(callbacks.length, 1);
  const replay = await page.goto(callbacks[0]!);
  assert.equal(replay?.status(), 400);
  await page.waitForSelector('text=This sign-in expired or was already used');
  await page.context().close();

  const second = await (await browser.newContext()).newPage();
  await ssoSignIn(second, 'bob@acme.test', 'bob');
  const bob = await stack.accounts.users.findByEmail('bob@acme.test');
  assert.ok(bob);
  assert.equal(
    await stack.accounts.workspaces.roleOf(bob.id, (await stack.accounts.workspaces.getProject('acme-docs'))!),
    'VIEWER',
    'the default role',
  );
  await second.context().close();
  assert.ok((await auditActions('acme')).includes('sso.signed_in'));
});

test("svc login's device flow signs in through SSO: the code, the company's sign-in, consent, tokens", async () => {
  idp.directory.set('fay', { email: 'fay@acme.test', email_verified: true, groups: ['writers'] });
  const config = await oc.discovery(new URL(stack.authUrl), 'svc-cli', undefined, oc.None(), {
    algorithm: 'oauth2',
    execute: [oc.allowInsecureRequests],
  });
  const dar = await oc.initiateDeviceAuthorization(config, {});
  const polling = oc.pollDeviceAuthorizationGrant(config, dar);
  const page = await (await browser.newContext()).newPage();
  // svc login's code is typed, as the terminal shows it (docs/auth-service.md "Endpoints").
  await page.goto(dar.verification_uri);
  await page.waitForSelector('#user_code');
  await page.fill('#user_code', dar.user_code);
  await page.click('button[type=submit]');
  await ssoFromSignInPage(page, 'fay@acme.test', 'fay');
  await consent(page, { kind: 'personal' }, 'sso-device-consent');
  const tokens = await polling;
  assert.equal(typeof tokens.access_token, 'string');
  const fay = await stack.accounts.users.findByEmail('fay@acme.test');
  assert.ok(fay);
  assert.equal(await stack.accounts.workspaces.roleOf(fay.id, (await stack.accounts.workspaces.getProject('acme-docs'))!), 'EDITOR');
  await page.context().close();
});

test('an account someone made at the domain without proving the address loses its password and sessions to the SSO sign-in', async () => {
  // A squatter signed up with gus@acme.test (never confirmed) and is signed in.
  const squat = await stack.accounts.users.create({ email: 'gus@acme.test', password: PASSWORD });
  const squatter = await signedInPage('gus@acme.test', '/dashboard');
  // What the squatter left: a personal key, a key of its own workspace's project, a second factor.
  const personalKey = await stack.accounts.keys.createUserKey({ userId: squat.id });
  const project = await stack.accounts.workspaces.createProject({ slug: 'squat-project', workspace: squat.workspace, name: 'Squat' });
  const projectKey = await stack.accounts.keys.createProjectKey({
    project: project.slug,
    workspace: squat.workspace,
    level: 'ADMIN',
    name: 'left',
  });
  await stack.accounts.factors.beginTotp(squat.id, 'JBSWY3DPEHPK3PXP');
  await stack.accounts.factors.confirmTotp(squat.id, 1);
  idp.directory.set('gus', { email: 'gus@acme.test', email_verified: true });
  const gus = await (await browser.newContext()).newPage();
  await ssoSignIn(gus, 'gus@acme.test', 'gus');
  assert.match(new URL(gus.url()).pathname, /^\/dashboard/);
  await squatter.goto(`${stack.authUrl}/dashboard`);
  assert.equal(new URL(squatter.url()).pathname, '/signin', "the squatter's session ended");
  assert.equal(await stack.accounts.users.verifyPassword('gus@acme.test', PASSWORD), null, "the squatter's password is gone");
  for (const key of [personalKey, projectKey])
    assert.equal((await stack.accounts.keys.getById(key.record.id))?.revoked, true, 'its keys are revoked');
  assert.equal(await stack.accounts.factors.hasAny(squat.id), false, 'its second factor is gone');
  await squatter.context().close();
  await gus.context().close();
});

test('"members must use SSO" refuses password sign-in at the domain, with a clear sentence', async () => {
  const pat = await stack.accounts.users.create({ email: 'pat@acme.test', password: PASSWORD, emailVerified: true });
  assert.ok(pat);
  const before = await signedInPage('pat@acme.test', '/dashboard');
  await before.context().close();

  const owner = await signedInPage(ownerEmail, '/dashboard/workspaces/acme/sso');
  await owner.check('input[name=required]');
  await owner.click('form[action$="/sso/policy"] button[type=submit]');
  await owner.waitForSelector('text=Single sign-on policy saved');
  await owner.context().close();

  const page = await (await browser.newContext()).newPage();
  await page.goto(`${stack.authUrl}/signin`);
  const answer = page.waitForResponse((r) => r.url().endsWith('/signin') && r.request().method() === 'POST');
  await signInOnPage(page, 'pat@acme.test', PASSWORD);
  assert.equal((await answer).status(), 403);
  await page.waitForSelector("text=Members at acme.test sign in through their company's sign-in, not with a password");
  await shot(page, 'sso-password-refused');
  assert.deepEqual(await axeViolations(page), [], 'the sign-in page with its SSO button passes axe');
  await page.context().close();
});

test('a person removed at the provider is refused at their next sign-in', async () => {
  idp.directory.set('carol', { email: 'carol@acme.test', email_verified: true });
  const first = await (await browser.newContext()).newPage();
  await ssoSignIn(first, 'carol@acme.test', 'carol');
  assert.match(new URL(first.url()).pathname, /^\/dashboard/);
  await first.context().close();

  idp.directory.delete('carol');
  const page = await (await browser.newContext()).newPage();
  await ssoSignIn(page, 'carol@acme.test', 'carol');
  await page.waitForSelector("text=Your company's sign-in refused you (access_denied)");
  assert.ok(!(await page.context().cookies()).some((c) => c.name === 'svc_session'), 'no session');
  await shot(page, 'sso-removed-refused');
  await page.context().close();
  assert.ok((await auditActions('acme')).includes('sso.refused'));
});

test('a forged nonce is refused', async () => {
  // A nonce changed on the way to the provider: the ID token carries it, not the one svc sent.
  idp.directory.set('eve', { email: 'eve@acme.test', email_verified: true });
  const page = await (await browser.newContext()).newPage();
  const authorizations: string[] = [];
  page.on('request', (r) => {
    if (r.url().startsWith(`${idp.issuer}/auth?`)) authorizations.push(r.url());
  });
  // The request svc sent to the provider is replayed with another nonce (the same state and PKCE challenge).
  const forgeNonce = async (at: Page) => {
    const forged = new URL(authorizations[0]!);
    forged.searchParams.set('nonce', 'forged');
    await at.goto(forged.href);
  };
  await ssoSignIn(page, 'eve@acme.test', 'eve', forgeNonce);
  await expectText(page, 'The sign-in answer was not for this sign-in (its nonce differs)');
  await page.context().close();
});

test('an address the provider has not verified is refused, and no account is made', async () => {
  idp.directory.set('dan', { email: 'dan@acme.test', email_verified: false });
  const unverified = await (await browser.newContext()).newPage();
  await ssoSignIn(unverified, 'dan@acme.test', 'dan');
  await expectText(unverified, "Your company's sign-in has not verified the address dan@acme.test");
  assert.equal(await stack.accounts.users.findByEmail('dan@acme.test'), null, 'no account was made');
  await unverified.context().close();
});

describe('a workspace whose issuer sends its sign-ins to another provider', () => {
  // Its discovery document names itself but points at the company's provider: the answer names that other issuer.
  let mixUp: { issuer: string; close(): Promise<void> };
  before(async () => {
    mixUp = await startMixUpIssuer(idp.issuer);
    const owner = await stack.accounts.users.create({ email: `mix-${Date.now()}@elsewhere.test`, password: PASSWORD, emailVerified: true });
    await stack.accounts.workspaces.create({ slug: 'mixup', owner: owner.id });
    const settings = await signedInPage(owner.email, '/dashboard/workspaces/mixup/sso');
    await setUpSso(settings, 'mixup', { issuer: mixUp.issuer, domain: 'mixup.test' });
    await settings.context().close();
  });
  after(() => mixUp?.close());

  test("its answer is refused as another issuer's, and no account is made", async () => {
    idp.directory.set('mallory', { email: 'mallory@mixup.test', email_verified: true });
    const mixed = await (await browser.newContext()).newPage();
    await ssoSignIn(mixed, 'mallory@mixup.test', 'mallory');
    await expectText(mixed, 'issued by another provider');
    assert.equal(await stack.accounts.users.findByEmail('mallory@mixup.test'), null);
    await mixed.context().close();
  });

  test('a provider that cannot be read is said on the sign-in page (502), never an error page', async () => {
    await mixUp.close();
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${stack.authUrl}/signin`);
    await page.fill('#email', 'mallory@mixup.test');
    const answer = page.waitForResponse((r) => r.url().endsWith('/signin') && r.request().method() === 'POST');
    await page.click('button[name=sso]');
    assert.equal((await answer).status(), 502);
    await expectText(page, "The provider's discovery document at");
    await page.context().close();
  });
});
