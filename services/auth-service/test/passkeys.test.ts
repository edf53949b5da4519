/**
 * Passkeys over HTTP against a real auth-service and Redis (docs/auth-service.md "Passkeys"); the
 * ceremonies themselves run in chromium (tests/auth/passkeys.test.ts). Here: the bound on passkeys
 * per account, the counter moving only forward, the challenge's TTL, and bad credential JSON
 * answered 400 naming the field.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MAX_PASSKEYS_PER_ACCOUNT } from '@svc/accounts';
import { MAX_CREDENTIAL_JSON_CHARS } from '../src/factors/passkey-form.ts';
import { WEBAUTHN_CHALLENGE_TTL_SECONDS } from '../src/factors/webauthn-challenge.ts';
import { startAuth, TEST_PASSWORD, type AuthFixture } from './support.ts';

let f: AuthFixture;
before(async () => {
  f = await startAuth();
});
after(() => f.close());

const cookiesOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');

async function person(prefix: string) {
  const email = `${prefix}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  return f.accounts.users.create({ email, password: TEST_PASSWORD, emailVerified: true });
}

const passkey = (n: number) => ({ id: `cred-${n}`, publicKey: 'AAAA', counter: 0, transports: ['internal'] });

test(`an account holds at most MAX_PASSKEYS_PER_ACCOUNT (${MAX_PASSKEYS_PER_ACCOUNT}) passkeys`, async () => {
  const user = await person('pk-bound');
  for (let n = 0; n < MAX_PASSKEYS_PER_ACCOUNT; n++) assert.equal(await f.accounts.factors.passkeys.add(user.id, passkey(n)), 'added');
  assert.equal(await f.accounts.factors.passkeys.add(user.id, passkey(MAX_PASSKEYS_PER_ACCOUNT)), 'full');
  assert.equal(await f.accounts.factors.passkeys.count(user.id), MAX_PASSKEYS_PER_ACCOUNT);
  assert.ok(await f.accounts.factors.hasAny(user.id), 'a passkey is a second factor');
});

test('a signature counter moves only forward (0 after 0 allowed, for authenticators without one)', async () => {
  const user = await person('pk-counter');
  const store = f.accounts.factors.passkeys;
  await store.add(user.id, passkey(1));
  assert.equal(await store.use(user.id, 'cred-1', 0), true);
  assert.equal(await store.use(user.id, 'cred-1', 5), true);
  assert.equal(await store.use(user.id, 'cred-1', 5), false, 'the same counter twice is a replay or a clone');
  assert.equal(await store.use(user.id, 'cred-1', 4), false);
  assert.equal(await store.use(user.id, 'cred-1', 0), false, 'back to 0 after 5 is refused');
  assert.equal(await store.use(user.id, 'cred-unknown', 9), false);
  assert.equal((await store.get(user.id, 'cred-1'))?.counter, 5);
});

test(`a passwordless challenge lives WEBAUTHN_CHALLENGE_TTL_SECONDS (${WEBAUTHN_CHALLENGE_TTL_SECONDS} s) and is bound to its cookie`, async () => {
  const res = await fetch(`${f.url}/signin/passkey`);
  assert.equal(res.status, 200);
  const html = await res.text();
  assert.match(html, /<script src="\/assets\/passkey.js"><\/script>/);
  assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  const scriptSrc = (res.headers.get('content-security-policy') ?? '').split('; ').filter((d) => d.startsWith('script-src'));
  assert.deepEqual(scriptSrc, ["script-src 'self'"], 'the passkey script is allowed from the auth host, nothing inline');
  const cookie = /svc_webauthn=[^;]+;[^,]*Max-Age=(\d+)/i.exec(res.headers.getSetCookie().join(','));
  assert.equal(Number(cookie?.[1]), WEBAUTHN_CHALLENGE_TTL_SECONDS);
  const keys = await f.client.keys('svc:oidc:webauthn-challenge:*');
  assert.ok(keys.length >= 1);
  const ttl = await f.client.ttl(keys[0]!);
  assert.ok(ttl > 0 && ttl <= WEBAUTHN_CHALLENGE_TTL_SECONDS, `ttl ${ttl}`);
  const script = await fetch(`${f.url}/assets/passkey.js`);
  assert.match(script.headers.get('content-type') ?? '', /javascript/);
});

test('bad credential JSON is a 400 naming the field, never a 500', async () => {
  const page = await fetch(`${f.url}/signin/passkey`);
  const cookie = cookiesOf(page);
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const post = async (fields: Record<string, string>) => {
    const res = await fetch(`${f.url}/signin/passkey`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: f.url },
      body: new URLSearchParams({ csrf, ...fields }),
      redirect: 'manual',
    });
    return { status: res.status, html: await res.text() };
  };
  const cases: [Record<string, string>, RegExp][] = [
    [{}, /credential/],
    [{ credential: 'not json' }, /&quot;credential&quot; is not JSON/],
    [{ credential: 'x'.repeat(MAX_CREDENTIAL_JSON_CHARS + 1) }, /&quot;credential&quot;/],
    [{ credential: JSON.stringify({ id: 'a', rawId: 'a', type: 'other', response: { clientDataJSON: 'a' } }) }, /type/],
    [{ credential: JSON.stringify({ id: 'a/b', rawId: 'a', type: 'public-key', response: { clientDataJSON: 'a' } }) }, /id/],
    [{ credential: JSON.stringify({ id: 'a', rawId: 'a', type: 'public-key', response: { clientDataJSON: 'a' } }) }, /authenticatorData/],
    [
      {
        credential: JSON.stringify({
          id: 'a',
          rawId: 'a',
          type: 'public-key',
          response: { clientDataJSON: 'a', authenticatorData: 'a', signature: 'a' },
        }),
      },
      /not accepted/,
    ],
  ];
  for (const [fields, named] of cases) {
    const r = await post(fields);
    assert.equal(r.status, 400, JSON.stringify(fields).slice(0, 80));
    assert.match(r.html, named);
  }
});

test('passwordless challenges count in the sign-in address budget: past it a 429, and no more challenges kept', async () => {
  const limited = await startAuth({ limits: { signInPerIp: { limit: 3, windowSeconds: 900 } } });
  try {
    for (let i = 0; i < 3; i++) assert.equal((await fetch(`${limited.url}/signin/passkey`)).status, 200);
    const over = await fetch(`${limited.url}/signin/passkey`);
    assert.equal(over.status, 429);
    assert.match(await over.text(), /Too many/i);
    assert.equal((await limited.client.keys('svc:oidc:webauthn-challenge:*')).length, 3, 'one challenge per counted attempt');
  } finally {
    await limited.close();
  }
});
