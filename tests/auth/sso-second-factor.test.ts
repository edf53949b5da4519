/**
 * A workspace's second-factor policy and single sign-on (docs/auth-service.md "Second factor",
 * "Single sign-on and the second factor"), in chromium against a second, real oidc-provider: a
 * sign-in through a workspace's own provider counts on that provider for the factor that workspace
 * requires, and for no other workspace's. A member of a workspace that requires a factor, signing
 * in through another workspace's provider, sets one up or gives theirs before a session exists;
 * the same person through the provider of the one workspace requiring it goes straight in.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { SSO_SESSION_MAX_SECONDS } from '@svc/sso';
import type { Stack } from '../support/stack.ts';
import { startCompanyIdp, type CompanyIdp } from '../support/company-idp.ts';
import { shot, startStackAndBrowser, stopStackAndBrowser } from './browser.ts';
import { ssoSignIn } from './sso-pages.ts';
import { ssoOwner } from './sso-setup.ts';

let stack: Stack;
let browser: Browser;
let idp: CompanyIdp;

/** A workspace with one project, owned by someone at another domain; `requiresFactor` its policy. */
async function workspace(slug: string, requiresFactor: boolean) {
  const owner = await stack.accounts.users.create({ email: `${slug}-owner@elsewhere.test`, emailVerified: true });
  await stack.accounts.workspaces.create({ slug, owner: owner.id });
  await stack.accounts.workspaces.createProject({ slug: `${slug}-docs`, workspace: slug });
  await stack.accounts.factors.setRequired(slug, requiresFactor);
  return owner;
}

before(async () => {
  ({ stack, browser } = await startStackAndBrowser({ SSO_PRIVATE_ISSUERS: 'allow' }));
  idp = await startCompanyIdp(`${stack.authUrl}/sso/callback`);
  // acme signs its people in through the company's provider and requires a second factor: its
  // provider is trusted to have asked for it.
  const acme = ssoOwner(stack, await workspace('acme', true));
  await acme.configureProvider('acme', idp);
  await acme.claimDomain('acme', 'acme.test');
  // strict configured no provider and requires a second factor of its members.
  await workspace('strict', true);
  await workspace('lax', false);
});
after(async () => {
  await idp?.close();
  await stopStackAndBrowser(stack, browser);
});

/** A person at acme.test known to the company's provider as `login`, a member of `project` too when given. */
async function person(login: string, project?: string) {
  const user = await stack.accounts.users.create({ email: `${login}@acme.test`, emailVerified: true });
  idp.directory.set(login, { email: user.email, email_verified: true });
  if (project) await stack.accounts.workspaces.setRole(project, user.id, 'EDITOR');
  return user;
}

const sessionOf = async (context: BrowserContext) => (await context.cookies()).find((c) => c.name === 'svc_session');

test("a member of a workspace that requires a second factor, signing in through another workspace's provider, sets one up before any page", async () => {
  const ada = await person('ada', 'strict-docs');
  const context = await browser.newContext();
  const page = await context.newPage();
  await ssoSignIn(page, stack.authUrl, ada.email, 'ada');
  assert.equal(new URL(page.url()).pathname, '/signin/enrol', `sent to ${page.url()}`);
  await page.waitForSelector('#secret');
  await shot(page, 'sso-factor-enrol');
  assert.equal(await sessionOf(context), undefined, 'no session before the factor');
  await page.goto(`${stack.authUrl}/dashboard/projects/strict-docs/keys`);
  assert.equal(new URL(page.url()).pathname, '/signin', "strict's pages are out of reach");
  await context.close();
});

test('a member with a factor is asked for it; the session starts after it, bounded as an SSO session is', async () => {
  const bea = await person('bea', 'strict-docs');
  await stack.accounts.factors.beginTotp(bea.id, 'JBSWY3DPEHPK3PXP');
  const codes = await stack.accounts.factors.confirmTotp(bea.id, 1);
  assert.ok(Array.isArray(codes));
  const context = await browser.newContext();
  const page = await context.newPage();
  await ssoSignIn(page, stack.authUrl, bea.email, 'bea');
  assert.equal(new URL(page.url()).pathname, '/signin/factor', `sent to ${page.url()}`);
  assert.equal(await sessionOf(context), undefined, 'no session before the factor');
  await page.click('summary');
  await page.fill('#recovery', codes[0]!);
  await page.click('form:has(#recovery) button[type=submit]');
  await page.waitForURL((u) => u.pathname.startsWith('/dashboard'));
  const session = await sessionOf(context);
  assert.ok(session, 'the session started after the factor');
  const key = `svc:oidc:web-session:${createHash('sha256').update(decodeURIComponent(session.value)).digest('hex')}`;
  const ttl = await stack.client.ttl(key);
  assert.ok(ttl > SSO_SESSION_MAX_SECONDS - 120 && ttl <= SSO_SESSION_MAX_SECONDS, `the session lives ${ttl} s`);
  assert.ok(Number(await stack.client.hget(key, 'factorAt')) > 0, 'the session records its factor');
  const own = await stack.accounts.audit.page(bea.workspace, { action: 'signin.succeeded' });
  assert.ok(
    own.entries.some((e) => e.detail?.['method'] === 'sso' && e.detail['workspace'] === 'acme' && e.detail['factor'] === 'second'),
    JSON.stringify(own.entries),
  );
  await context.close();
});

test('through the provider of the one workspace requiring a factor, or with only workspaces requiring none, no factor is asked', async () => {
  for (const [login, project] of [
    ['cy', undefined],
    ['dee', 'lax-docs'],
  ] as const) {
    const who = await person(login, project);
    const context = await browser.newContext();
    const page = await context.newPage();
    await ssoSignIn(page, stack.authUrl, who.email, login);
    assert.match(new URL(page.url()).pathname, /^\/dashboard/, `${login} went to ${page.url()}`);
    assert.ok(await sessionOf(context), `${login} is signed in`);
    // The sign-in made them a member of acme, whose policy its provider answers for.
    assert.equal(await stack.accounts.workspaces.roleOf(who.id, (await stack.accounts.workspaces.getProject('acme-docs'))!), 'VIEWER');
    await context.close();
  }
});
