/**
 * Logout from the company's provider (docs/auth-service.md "Logout from the company's provider"):
 * a person signed in to svc through their company's real OpenID provider (tests/support/company-idp.ts,
 * an oidc-provider with back-channel logout registered for svc's client) signs out there, and the
 * provider's own logout token ends their svc session. Then a table of logout tokens that OpenID
 * Connect Back-Channel Logout 1.0 §2.6 says to refuse, each signed as an attacker could (another
 * key, another issuer or audience, a nonce, no events, a replayed jti, ...): each is answered 400
 * and the person's session lives on; a valid one naming the person by `sub` ends every session.
 */
import assert from 'node:assert/strict';
import { generateKeyPair, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { importJWK, SignJWT, type JWTPayload } from 'jose';
import type { Browser, BrowserContext } from 'playwright-core';
import { waitFor } from '@svc/testkit';
import { startCompanyIdp, type CompanyIdp } from '../support/company-idp.ts';
import { PASSWORD, type Stack } from '../support/stack.ts';
import { signInOnPage, startStackAndBrowser, stopStackAndBrowser } from './browser.ts';
import { ssoSignIn } from './sso-pages.ts';
import { ssoOwner } from './sso-setup.ts';

const EVENT = 'http://schemas.openid.net/event/backchannel-logout';
const DOMAIN = 'acme-logout.test';
let stack: Stack;
let browser: Browser;
let idp: CompanyIdp;
let ws: string;
let logoutUri: string;

before(async () => {
  ({ stack, browser } = await startStackAndBrowser({ SSO_PRIVATE_ISSUERS: 'allow' }));
  ws = `logout-${Math.random().toString(36).slice(2, 8)}`;
  logoutUri = `${stack.authUrl}/api/sso/backchannel-logout/${ws}`;
  idp = await startCompanyIdp(`${stack.authUrl}/sso/callback`, { backchannelLogoutUri: logoutUri });
  const owner = await stack.accounts.users.create({ email: `owner-${ws}@elsewhere.test`, password: PASSWORD, emailVerified: true });
  await stack.accounts.workspaces.create({ slug: ws, owner: owner.id });
  await stack.accounts.workspaces.createProject({ slug: `${ws}-docs`, workspace: ws });
  const sso = ssoOwner(stack, owner);
  await sso.claimDomain(ws, DOMAIN);
  await sso.configureProvider(ws, { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret });
  idp.directory.set('ann', { email: `ann@${DOMAIN}`, email_verified: true });
});
after(async () => {
  await idp?.close();
  await stopStackAndBrowser(stack, browser);
});

/** A browser signed in to svc through the company's provider, on svc's dashboard. */
async function signedInThroughSso(): Promise<BrowserContext> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await ssoSignIn(page, stack.authUrl, `ann@${DOMAIN}`, 'ann');
  await page.waitForURL((u) => u.pathname.startsWith('/dashboard'));
  return context;
}

/** True while the browser's svc session lives: the dashboard opens rather than the sign-in page. */
async function signedIn(context: BrowserContext): Promise<boolean> {
  const page = await context.newPage();
  try {
    await page.goto(`${stack.authUrl}/dashboard`);
    return new URL(page.url()).pathname.startsWith('/dashboard');
  } finally {
    await page.close();
  }
}

async function post(token: string | null, path = logoutUri) {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: token === null ? '' : new URLSearchParams({ logout_token: token }).toString(),
  });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as { error?: string; error_description?: string } };
}

test('signing out at the company’s provider ends the svc session that signed in through it (the provider’s own logout token)', async () => {
  const context = await signedInThroughSso();
  try {
    assert.equal(await signedIn(context), true);
    const page = await context.newPage();
    // OpenID Connect RP-Initiated Logout at the provider: its end_session page, confirmed.
    await page.goto(`${idp.issuer}/session/end`);
    await page.click('button[name=logout]');
    await page.waitForLoadState('load');
    await waitFor(async () => !(await signedIn(context)), {
      timeout: 10_000,
      message: 'the svc session to end after the provider’s logout',
    });
    const entry = (await stack.accounts.audit.page(ws, { limit: 20 })).entries.find((e) => e.action === 'sso.logged_out');
    assert.deepEqual([entry?.actor, entry?.detail?.['by'], entry?.detail?.['sessions_ended']], [`sso:${idp.issuer}`, 'sid', '1']);
  } finally {
    await context.close();
  }
});

test('each logout token §2.6 refuses is answered 400 and ends nothing; a valid one naming the person by sub ends every session', async () => {
  const context = await signedInThroughSso();
  const own = await importJWK(idp.signingKey, 'RS256');
  // Made off the event loop (node:crypto's thread pool), as the test budget asks.
  const stranger = (await promisify(generateKeyPair)('rsa', { modulusLength: 2048 })).privateKey;
  const now = Math.floor(Date.now() / 1000);
  const claims = (): JWTPayload => ({
    iss: idp.issuer,
    aud: idp.clientId,
    iat: now,
    jti: randomUUID(),
    sub: 'ann',
    events: { [EVENT]: {} },
  });
  const sign = (payload: JWTPayload, key: Parameters<SignJWT['sign']>[0] = own, alg = 'RS256') =>
    new SignJWT(payload).setProtectedHeader({ alg, kid: 'company-1', typ: 'logout+jwt' }).sign(key);
  const without = (name: string) => {
    const c = claims();
    delete c[name];
    return c;
  };
  const replayed = await sign(claims());
  const cases: [string, () => Promise<string | null>][] = [
    ['no logout_token', async () => null],
    ['not a JWT', async () => 'not.a.jwt'],
    ['signed by another key under the provider’s kid', () => sign(claims(), stranger)],
    ['signed with the client secret (HS256)', () => sign(claims(), new TextEncoder().encode(idp.clientSecret), 'HS256')],
    [
      'unsigned (alg none)',
      async () => `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims())).toString('base64url')}.`,
    ],
    ['another issuer', () => sign({ ...claims(), iss: 'https://evil.example' })],
    ['another audience', () => sign({ ...claims(), aud: 'another-client' })],
    ['a nonce', () => sign({ ...claims(), nonce: 'n' })],
    ['no events', () => sign(without('events'))],
    ['events without the logout member', () => sign({ ...claims(), events: { 'http://example.com/other': {} } })],
    ['no jti', () => sign(without('jti'))],
    ['no iat', () => sign(without('iat'))],
    ['issued an hour ago', () => sign({ ...claims(), iat: now - 3600 })],
    ['neither sid nor sub', () => sign(without('sub'))],
    ['a replayed jti', async () => replayed],
  ];
  try {
    // The replayed token's first use is accepted (it names the person by sub: every session ends), so sign in again after it.
    assert.equal((await post(replayed)).status, 200);
    await waitFor(async () => !(await signedIn(context)), 'the first use of the token to end the session');
    const again = await signedInThroughSso();
    for (const [what, make] of cases) {
      const r = await post(await make());
      assert.deepEqual([r.status, r.body.error], [400, 'invalid_request'], `${what}: ${JSON.stringify(r.body)}`);
      assert.ok(r.body.error_description, what);
    }
    assert.equal((await post(await sign(claims()), `${stack.authUrl}/api/sso/backchannel-logout/no-such-workspace`)).status, 400);
    assert.equal(await signedIn(again), true, 'no refused token ended the session');
    assert.equal((await post(await sign(claims()))).status, 200);
    assert.equal(await signedIn(again), false, 'a valid token naming the person by sub ends every session');
    await again.close();
  } finally {
    await context.close();
  }
});

test('signing out of svc from a session the provider started offers signing out there too (RP-Initiated Logout): the provider’s end_session with svc’s client_id', async () => {
  const context = await signedInThroughSso();
  try {
    const page = await context.newPage();
    await page.goto(`${stack.authUrl}/signout`);
    await page.click('form[action="/signout"] button[type=submit]');
    await page.waitForSelector('[role=status]');
    const link = page.getByRole('link', { name: "Sign out of your company's sign-in too" });
    const href = new URL((await link.getAttribute('href')) ?? '');
    assert.equal(`${href.origin}${href.pathname}`, `${idp.issuer}/session/end`);
    assert.equal(href.searchParams.get('client_id'), idp.clientId);
    assert.equal(await signedIn(context), false, 'the svc session ended');
    await link.click();
    await page.waitForLoadState('load');
    // The provider asks to confirm when it still holds a session (here svc and the provider share a
    // host, so svc's sign-out already cleared the provider's cookie), then says it signed out.
    if ((await page.locator('button[name=logout]').count()) > 0) await page.click('button[name=logout]');
    await page.waitForURL((u) => u.pathname === '/session/end/success');
  } finally {
    await context.close();
  }
});

test('signing out of svc from a session with a password offers no provider sign-out', async () => {
  const person = await stack.accounts.users.create({ email: `pw-${ws}@elsewhere.test`, password: PASSWORD, emailVerified: true });
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${stack.authUrl}/signin`);
    await signInOnPage(page, person.email, PASSWORD);
    await page.goto(`${stack.authUrl}/signout`);
    await page.click('form[action="/signout"] button[type=submit]');
    await page.waitForSelector('[role=status]');
    assert.equal(await page.getByRole('link', { name: /Sign out of your company/ }).count(), 0);
  } finally {
    await context.close();
  }
});
