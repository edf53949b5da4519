/**
 * CSRF on our pages (docs/auth-service.md "Sign-in protections"): the form token is bound to the
 * browser's CSRF cookie and session under the cookie key, so a cookie planted with the same value
 * in the form, or another session's token, is refused; and a POST from another site is refused by
 * its Origin / Sec-Fetch-Site / Referer whatever the token says.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startAuth, TEST_PASSWORD, type AuthFixture } from './support.ts';

let f: AuthFixture;
before(async () => {
  f = await startAuth({ limits: { signInPerAccount: { limit: 1000, windowSeconds: 60 } } });
  for (const who of ['alice', 'bob']) await f.accounts.users.create({ email: `${who}@example.com`, password: TEST_PASSWORD });
});
after(() => f.close());

const cookieOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');

/** A page's form: its CSRF token and the cookies the browser holds after loading it. */
async function load(path: string, cookie = '') {
  const res = await fetch(`${f.url}${path}`, { headers: { cookie } });
  const csrf = /name="csrf" value="([^"]+)"/.exec(await res.text())?.[1] ?? '';
  return { csrf, cookie: [cookie, cookieOf(res)].filter(Boolean).join('; ') };
}

const post = (path: string, cookie: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${f.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...headers },
    body: new URLSearchParams(form),
  });

const signInForm = { email: 'alice@example.com', password: TEST_PASSWORD };

test('a planted CSRF cookie with the same value in the form is refused', async () => {
  const planted = 'A'.repeat(43);
  const res = await post('/signin', `svc_csrf=${planted}`, { csrf: planted, ...signInForm });
  assert.equal(res.status, 403);
  assert.match(await res.text(), /The form expired/);
  // The token the page gave is not the cookie's value, and it works.
  const page = await load('/signin');
  assert.ok(!page.cookie.includes(page.csrf), 'the form token is not the cookie value');
  assert.equal((await post('/signin', page.cookie, { csrf: page.csrf, ...signInForm })).status, 303);
});

test("another session's token and cookie are refused in this session", async () => {
  const signedIn = async (email: string) => {
    const page = await load('/signin');
    const res = await post('/signin', page.cookie, { csrf: page.csrf, email, password: TEST_PASSWORD });
    assert.equal(res.status, 303);
    return load('/signout', `${page.cookie}; ${cookieOf(res)}`);
  };
  const attacker = await signedIn('alice@example.com');
  const victim = await signedIn('bob@example.com');
  const attackerCsrf = /svc_csrf=([^;]+)/.exec(attacker.cookie)?.[1] ?? '';
  const victimSession = /svc_session=([^;]+)/.exec(victim.cookie)?.[1] ?? '';
  const forged = await post('/signout', `svc_csrf=${attackerCsrf}; svc_session=${victimSession}`, { csrf: attacker.csrf });
  assert.equal(forged.status, 403);
  assert.equal((await post('/signout', victim.cookie, { csrf: victim.csrf })).status, 200, 'the victim signs out with their own form');
});

test('a POST from another site is refused whatever its token; the browser signals decide', async () => {
  const refused: Record<string, string>[] = [
    { origin: 'https://evil.example' },
    { origin: 'null' },
    { origin: `${f.url}.evil.example` },
    { 'sec-fetch-site': 'cross-site' },
    { 'sec-fetch-site': 'same-site', origin: f.url },
    // Missing Origin: Fetch Metadata or the Referer still tells where the form came from.
    { 'sec-fetch-site': 'cross-site', referer: `${f.url}/signin` },
    { referer: 'https://evil.example/page' },
  ];
  for (const headers of refused) {
    const page = await load('/signin');
    const res = await post('/signin', page.cookie, { csrf: page.csrf, ...signInForm }, headers);
    assert.equal(res.status, 403, JSON.stringify(headers));
    assert.match(await res.text(), /sent from another site/);
  }
  const accepted: Record<string, string>[] = [
    { origin: f.url, 'sec-fetch-site': 'same-origin' },
    { origin: f.url },
    { 'sec-fetch-site': 'none' },
    { referer: `${f.url}/signin?return=/` },
    // No browser signal at all (a script, not a browser that a page could drive): the token decides.
    {},
  ];
  for (const headers of accepted) {
    const page = await load('/signin');
    const res = await post('/signin', page.cookie, { csrf: page.csrf, ...signInForm }, headers);
    assert.equal(res.status, 303, JSON.stringify(headers));
  }
  // OAuth endpoints are called from anywhere: no Origin check under /api/.
  const reg = await fetch(`${f.url}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: 'https://client.example', 'sec-fetch-site': 'cross-site' },
    body: JSON.stringify({ client_name: 'spa', redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none' }),
  });
  assert.equal(reg.status, 201);
});
