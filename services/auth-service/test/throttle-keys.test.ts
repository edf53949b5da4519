/**
 * Throttles keyed by what they protect (docs/auth-service.md "Sign-in protections"): failures at
 * many accounts from one address (people behind one NAT) do not lock the others out; guessing at
 * one account spread over many addresses meets the account's exponential backoff; every throttle
 * answers its own 429 with Retry-After; the page offers the reset and, inside an authorization,
 * the way back to the app. Loopback stands for a named proxy (TRUST_PROXY=loopback), so each
 * request's address is its X-Forwarded-For. The clock of the backoff is the test's.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { startSmtpInbox, testClock, waitFor, type SmtpInbox } from '@svc/testkit';
import { DEFAULT_LIMITS } from '../src/http/throttle.ts';
import { postJson, startAuth, TEST_PASSWORD, type AuthFixture } from './support.ts';

let f: AuthFixture;
let smtp: SmtpInbox;
const clock = testClock();
before(async () => {
  smtp = await startSmtpInbox();
  f = await startAuth({ env: { TRUST_PROXY: 'loopback', SMTP_URL: smtp.url }, now: clock.now });
  await f.accounts.users.create({ email: 'owner@example.com', password: TEST_PASSWORD });
  await f.accounts.users.create({ email: 'neighbour@example.com', password: TEST_PASSWORD });
});
after(async () => {
  await f.close();
  await smtp.close();
});
beforeEach(async () => {
  const keys = await f.client.keys('svc:oidc:throttle:*');
  if (keys.length) await f.client.del(...keys);
});

const cookieOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');

/** Fetches the form at `path` from `from`, then posts `form` (with its CSRF token) from there. */
async function submit(path: string, from: string, form: Record<string, string>, extraCookie = ''): Promise<Response> {
  return (await submitWithCookie(path, from, form, extraCookie)).res;
}

async function submitWithCookie(path: string, from: string, form: Record<string, string>, extraCookie: string) {
  const page = await fetch(`${f.url}${path}`, { headers: { 'x-forwarded-for': from, cookie: extraCookie } });
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const cookie = [cookieOf(page), extraCookie].filter(Boolean).join('; ');
  const res = await fetch(`${f.url}${path.split('?')[0]}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, 'x-forwarded-for': from },
    body: new URLSearchParams({ csrf, ...form }),
  });
  return { res, cookie };
}

const signIn = (from: string, email: string, password: string) => submit('/signin', from, { email, password });

test('one address failing at many accounts does not lock the other people behind it out', async () => {
  const nat = '198.51.100.20';
  // Twenty failures at twenty accounts: the old per-address limit (20 per 15 min) locked the 21st person out.
  for (let i = 0; i < 20; i++) assert.equal((await signIn(nat, `person${i}@example.com`, 'wrong password')).status, 401);
  assert.equal((await signIn(nat, 'neighbour@example.com', TEST_PASSWORD)).status, 303);
  // The address's own budget still ends password spraying.
  for (let i = 20; i < DEFAULT_LIMITS.signInPerIp.limit; i++) await (await signIn(nat, `person${i}@example.com`, 'wrong')).body?.cancel();
  const sprayed = await signIn(nat, 'neighbour@example.com', TEST_PASSWORD);
  assert.equal(sprayed.status, 429);
  assert.ok(Number(sprayed.headers.get('retry-after')) > 0);
});

test('guessing at one account from many addresses meets its backoff: 1 s, 2 s, 4 s ... up to 15 min', async () => {
  const rule = DEFAULT_LIMITS.signInAccountBackoff;
  const statuses: number[] = [];
  for (let i = 0; i < 30; i++) statuses.push((await signIn(`203.0.113.${i + 1}`, 'owner@example.com', `guess ${i}`)).status);
  // Keyed by account and address only, all 30 were checked.
  assert.equal(statuses.filter((s) => s === 401).length, rule.freeFailures, statuses.join(','));
  const waits: number[] = [];
  for (let step = 0; step < 12; step++) {
    const refused = await signIn('192.0.2.1', 'owner@example.com', `guess again ${step}`);
    assert.equal(refused.status, 429);
    const wait = Number(refused.headers.get('retry-after'));
    waits.push(wait);
    clock.advance(wait * 1000);
    assert.equal((await signIn(`192.0.2.${step + 2}`, 'owner@example.com', `after wait ${step}`)).status, 401);
  }
  assert.deepEqual(waits, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, rule.maxWaitSeconds, rule.maxWaitSeconds]);
  assert.equal(rule.maxWaitSeconds, 900);
  // The owner is slowed, not shut out: after the wait the right password works and ends the backoff.
  clock.advance(rule.maxWaitSeconds * 1000);
  assert.equal((await signIn('192.0.2.200', 'owner@example.com', TEST_PASSWORD)).status, 303);
  assert.equal(await f.client.exists('svc:oidc:throttle:signin-backoff:owner@example.com'), 0);
  // The count is forgotten a day after the last failure (the key's TTL).
  await signIn('192.0.2.201', 'owner@example.com', 'one more');
  const ttl = await f.client.ttl('svc:oidc:throttle:signin-backoff:owner@example.com');
  assert.ok(ttl > 0 && ttl <= rule.memorySeconds, String(ttl));
});

test('the slowed page offers the reset and, inside an authorization, the way back to the app', async () => {
  const from = '198.51.100.30';
  for (let i = 0; i < DEFAULT_LIMITS.signInPerAccount.limit; i++)
    await (await signIn(from, 'owner@example.com', `wrong ${i}`)).body?.cancel();
  const plain = await signIn(from, 'owner@example.com', TEST_PASSWORD);
  assert.equal(plain.status, 429);
  const html = await plain.text();
  assert.match(html, /Try again in 15 minutes/);
  assert.match(html, /<a href="\/forgot">Reset it by email<\/a>/);
  assert.doesNotMatch(html, /abort/);

  const redirect = 'http://127.0.0.1:9/cb';
  const reg = await postJson(`${f.url}/api/oauth/register`, {
    client_name: 'slowed app',
    redirect_uris: [redirect],
    token_endpoint_auth_method: 'none',
  });
  const url = new URL(`${f.url}/api/oauth/authorize`);
  url.search = new URLSearchParams({
    client_id: String(reg.body['client_id']),
    redirect_uri: redirect,
    response_type: 'code',
    scope: 'mcp',
    state: 'st',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  }).toString();
  const start = await fetch(url, { redirect: 'manual', headers: { 'x-forwarded-for': from } });
  const interaction = new URL(start.headers.get('location') ?? '', f.url).pathname;
  assert.match(interaction, /^\/interaction\/[A-Za-z0-9_-]+$/);
  const providerCookies = cookieOf(start);
  const { res: slowed, cookie: browser } = await submitWithCookie(
    `/signin?return=${encodeURIComponent(interaction)}`,
    from,
    { email: 'owner@example.com', password: TEST_PASSWORD, return: interaction },
    providerCookies,
  );
  assert.equal(slowed.status, 429);
  const page = await slowed.text();
  const action = /<form method="post" action="(\/interaction\/[^"]+\/abort)"><input type="hidden" name="csrf" value="([^"]+)">/.exec(page);
  assert.ok(action, page);
  assert.match(page, /Cancel and return to the app/);
  const back = await fetch(`${f.url}${action[1]}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: browser,
      'x-forwarded-for': from,
    },
    body: new URLSearchParams({ csrf: action[2]! }),
  });
  // oidc-provider resumes the authorization, which ends at the client with access_denied.
  let location = back.headers.get('location') ?? '';
  let cookie = [browser, cookieOf(back)].join('; ');
  for (let hops = 0; hops < 5 && !location.startsWith(redirect); hops++) {
    const next = await fetch(new URL(location, f.url), { redirect: 'manual', headers: { cookie } });
    cookie = [cookie, cookieOf(next)].join('; ');
    location = next.headers.get('location') ?? '';
  }
  const answer = new URL(location);
  assert.equal(answer.searchParams.get('error'), 'access_denied');
  assert.equal(answer.searchParams.get('state'), 'st');
});

test('every throttle answers its own 429 with Retry-After', async () => {
  const checks: [string, () => Promise<Response>, number][] = [
    [
      'sign-up per address',
      () => submit('/signup', '198.51.100.40', { email: `a${Math.random()}@example.com`, password: 'short' }),
      DEFAULT_LIMITS.signUpPerIp.limit,
    ],
    [
      'sign-up per email, from many addresses',
      () => submit('/signup', `198.51.100.${41 + Math.floor(Math.random() * 200)}`, { email: 'wanted@example.com', password: 'short' }),
      DEFAULT_LIMITS.signUpPerEmail.limit,
    ],
    [
      'reset per address',
      () => submit('/forgot', '198.51.101.1', { email: `r${Math.random()}@example.com` }),
      DEFAULT_LIMITS.resetPerIp.limit,
    ],
    [
      'reset per email, from many addresses',
      () => submit('/forgot', `198.51.101.${2 + Math.floor(Math.random() * 200)}`, { email: 'owner@example.com' }),
      DEFAULT_LIMITS.resetPerEmail.limit,
    ],
    [
      'code entry per address',
      () => fetch(`${f.url}/device?code=BCDF-0000`, { headers: { 'x-forwarded-for': '198.51.102.1' } }),
      DEFAULT_LIMITS.codeEntryPerIp.limit,
    ],
    [
      'registration per address',
      () =>
        fetch(`${f.url}/api/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.102.2' },
          body: JSON.stringify({ client_name: 'flood', redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none' }),
        }),
      DEFAULT_LIMITS.registrationPerIp.limit,
    ],
  ];
  for (const [name, call, limit] of checks) {
    for (let i = 0; i < limit; i++) {
      const res = await call();
      await res.body?.cancel();
      assert.notEqual(res.status, 429, `${name}: attempt ${i + 1} of ${limit}`);
    }
    const refused = await call();
    assert.equal(refused.status, 429, name);
    assert.ok(Number(refused.headers.get('retry-after')) > 0, name);
    await refused.body?.cancel();
  }
});

test("a password reset by the mailed link ends the account's backoff", async () => {
  for (let i = 0; i < DEFAULT_LIMITS.signInAccountBackoff.freeFailures; i++)
    await (await signIn(`203.0.114.${i + 1}`, 'neighbour@example.com', `guess ${i}`)).body?.cancel();
  const slowed = await signIn('192.0.2.50', 'neighbour@example.com', TEST_PASSWORD);
  assert.equal(slowed.status, 429);
  await slowed.body?.cancel();
  const before = smtp.mails.length;
  assert.equal((await submit('/forgot', '192.0.2.50', { email: 'neighbour@example.com' })).status, 200);
  const mail = await waitFor(() => smtp.mails.slice(before).find((m) => m.to.includes('neighbour@example.com')), {
    timeout: 10_000,
    message: 'the reset mail',
  });
  const token = /reset\?token=([A-Za-z0-9_-]+)/.exec(mail.text)?.[1] ?? '';
  const reset = await submit(`/reset?token=${token}`, '192.0.2.50', { token, password: 'a brand new long password' });
  assert.equal(reset.status, 200);
  assert.equal(await f.client.exists('svc:oidc:throttle:signin-backoff:neighbour@example.com'), 0);
  assert.equal((await signIn('192.0.2.50', 'neighbour@example.com', 'a brand new long password')).status, 303);
});
