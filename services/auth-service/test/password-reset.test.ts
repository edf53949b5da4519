/**
 * Password reset and email verification by email, through a real local SMTP server
 * (docs/auth-service.md "Password reset", "Email verification"): the same answer whether or not
 * the account exists, a link that works once, the password policy checked before the link is
 * spent, every signed-in browser signed out by a reset, a sign-up confirmed only by a POST from
 * the mailed link, and the page that says email is off.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSmtpInbox, waitFor, type SmtpInbox } from '@svc/testkit';
import { VERIFICATION_MAILS } from '../src/pages/email-verification.ts';
import { startAuth, type AuthFixture, signedIn } from './support.ts';

let f: AuthFixture;
let smtp: SmtpInbox;
const inbox = () => smtp.mails;

before(async () => {
  smtp = await startSmtpInbox();
  f = await startAuth({ env: { SMTP_URL: smtp.url } });
  await f.accounts.users.create({ email: 'ada@example.com', password: 'the old long password' });
});
after(async () => {
  await f.close();
  await smtp.close();
});

async function visit(path: string, sendCookie = '') {
  const res = await fetch(`${f.url}${path}`, { headers: { cookie: sendCookie } });
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const html = await res.text();
  return { status: res.status, html, cookie, csrf: /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '' };
}
async function post(path: string, cookie: string, form: Record<string, string>) {
  const res = await fetch(`${f.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams(form),
  });
  return { status: res.status, html: await res.text() };
}

/** Signs in as a browser would; the session cookie, with the CSRF cookie. */
const dashboardStatus = async (cookie: string) =>
  (await fetch(`${f.url}/dashboard/account`, { headers: { cookie }, redirect: 'manual' })).status;

test('a reset link by email: same answer for unknown accounts, policy checked first, works once, signs every browser out', async () => {
  const elsewhere = (await signedIn(f, 'ada@example.com', { password: 'the old long password' })).cookie;
  assert.equal(await dashboardStatus(elsewhere), 200, 'a browser signed in with the old password');
  const signin = await visit('/signin');
  assert.match(signin.html, /href="\/forgot">Forgot your password\?/);
  const form = await visit('/forgot');
  const unknown = await post('/forgot', form.cookie, { csrf: form.csrf, email: 'nobody@example.com' });
  const known = await post('/forgot', form.cookie, { csrf: form.csrf, email: 'ada@example.com' });
  assert.equal(unknown.status, 200);
  assert.equal(
    unknown.html.replace('nobody@example.com', 'X'),
    known.html.replace('ada@example.com', 'X'),
    'the page says the same for an account that does not exist',
  );
  const mail = await waitFor(() => inbox().find((m) => m.to === 'ada@example.com'), { timeout: 5000, message: 'the reset email' });
  assert.equal(inbox().filter((m) => m.to === 'nobody@example.com').length, 0);
  const link = /(http:\/\/127\.0\.0\.1:\d+\/reset\?token=[A-Za-z0-9_-]+)/.exec(mail.text)?.[1];
  assert.ok(link, mail.text);
  assert.equal((await f.client.keys('svc:oidc:password-reset:*')).length, 1);
  assert.ok(
    !(await f.client.keys('*')).some((k) => k.includes(new URL(link).searchParams.get('token')!)),
    'the token itself is not stored',
  );

  const page = await visit(new URL(link).pathname + new URL(link).search);
  assert.equal(page.status, 200);
  const token = new URL(link).searchParams.get('token')!;
  const weak = await post('/reset', page.cookie, { csrf: page.csrf, token, password: 'password1234' });
  assert.equal(weak.status, 400);
  assert.match(
    weak.html,
    /aria-invalid="true"[^>]*>.*id="password-error"[^>]*>That password is one of the most common ones; choose another\./s,
  );
  const ok = await post('/reset', page.cookie, { csrf: page.csrf, token, password: 'a brand new passphrase' });
  assert.equal(ok.status, 200);
  assert.match(ok.html, /Your new password is set/);
  assert.ok(await f.accounts.users.verifyPassword('ada@example.com', 'a brand new passphrase'));
  assert.equal(await f.accounts.users.verifyPassword('ada@example.com', 'the old long password'), null);
  assert.equal(await dashboardStatus(elsewhere), 303, 'the browser that knew the old password is signed out');
  assert.ok((await f.accounts.users.findByEmail('ada@example.com'))?.emailVerifiedAt, 'the link proved the address');
  const again = await post('/reset', page.cookie, { csrf: page.csrf, token, password: 'yet another passphrase' });
  assert.equal(again.status, 400);
  assert.match(again.html, /expired or was already used/);
});

test('sign-up mails a confirmation link; opening it changes nothing, the button confirms, once', async () => {
  const form = await visit('/signup');
  const res = await fetch(`${f.url}/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: form.cookie },
    body: new URLSearchParams({ csrf: form.csrf, email: 'grace@example.com', password: 'a long enough passphrase', return: '/dashboard' }),
    redirect: 'manual',
  });
  assert.equal(res.status, 200);
  assert.match(await res.text(), /Check your email/);
  const mail = await waitFor(() => inbox().find((m) => m.to === 'grace@example.com'), { timeout: 5000, message: 'the confirmation email' });
  assert.match(mail.text, /Confirm that grace@example\.com is your address/);
  const link = new URL(/(http:\/\/127\.0\.0\.1:\d+\/verify-email\?token=[A-Za-z0-9_-]+)/.exec(mail.text)?.[1] ?? '');
  const user = (await f.accounts.users.findByEmail('grace@example.com'))!;
  assert.equal(user.emailVerifiedAt, null);

  const page = await visit(link.pathname + link.search);
  assert.equal(page.status, 200);
  assert.match(page.html, /Confirm my email address/);
  assert.equal((await f.accounts.users.get(user.id))?.emailVerifiedAt, null, 'a GET (a mail scanner) confirms nothing');
  const token = link.searchParams.get('token')!;
  const confirmed = await post('/verify-email', page.cookie, { csrf: page.csrf, token });
  assert.equal(confirmed.status, 200);
  assert.match(confirmed.html, /grace@example\.com<\/strong> is confirmed/);
  assert.ok((await f.accounts.users.get(user.id))?.emailVerifiedAt);
  const again = await post('/verify-email', page.cookie, { csrf: page.csrf, token });
  assert.equal(again.status, 400);
  assert.match(again.html, /expired or was already used/);
  const entries = await f.accounts.audit.page(user.workspace, { action: 'email.verified' });
  assert.equal(entries.entries.length, 1);
});

test('with EMAIL=off the pages say reset by email is off', async () => {
  const off = await startAuth({ env: { EMAIL: 'off' } });
  try {
    const res = await fetch(`${off.url}/forgot`);
    assert.match(await res.text(), /Password reset by email is off on this server/);
  } finally {
    await off.close();
  }
});

test(`confirmation mails per account are bounded (${VERIFICATION_MAILS.limit} an hour): an address someone else signed up with is not flooded`, async () => {
  await f.accounts.users.create({ email: 'flooded@example.com', password: 'a long enough passphrase' });
  const browser = (await signedIn(f, 'flooded@example.com', { password: 'a long enough passphrase' })).cookie;
  const outcomes: string[] = [];
  for (let i = 0; i <= VERIFICATION_MAILS.limit; i++) {
    const form = await visit('/dashboard/account', browser);
    const res = await fetch(`${f.url}/dashboard/account/verify-email`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${browser}; ${form.cookie}` },
      body: new URLSearchParams({ csrf: form.csrf }),
      redirect: 'manual',
    });
    outcomes.push(/done=([a-z-]+)/.exec(res.headers.get('location') ?? '')?.[1] ?? String(res.status));
  }
  assert.deepEqual(outcomes, [...Array(VERIFICATION_MAILS.limit).fill('verification-sent'), 'verification-held']);
  await waitFor(() => inbox().filter((m) => m.to === 'flooded@example.com').length === VERIFICATION_MAILS.limit, {
    message: `${VERIFICATION_MAILS.limit} mails`,
  });
});
