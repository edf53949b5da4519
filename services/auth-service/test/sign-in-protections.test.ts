/**
 * Sign-in protections (docs/auth-service.md "Sign-in protections"): CSRF on every form, cookie
 * attributes, brute-force throttling of sign-in (per IP and per account) and of device code entry, and no open redirect after sign-in.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startAuth, postJson, type AuthFixture } from './support.ts';

let f: AuthFixture;
const LIMITS = {
  signInPerIp: { limit: 6, windowSeconds: 60 },
  signInPerAccount: { limit: 3, windowSeconds: 60 },
  codeEntryPerIp: { limit: 3, windowSeconds: 60 },
  registrationPerIp: { limit: 4, windowSeconds: 60 },
};
before(async () => {
  f = await startAuth({ limits: LIMITS });
  await f.accounts.users.create({ emailVerified: true, email: 'victim@example.com', password: 'correct horse battery staple' });
  await f.accounts.users.create({ emailVerified: true, email: 'other@example.com', password: 'correct horse battery staple' });
});
after(async () => {
  await f.close();
});

/** A browser-like visitor: keeps cookies, reads the CSRF field from the page. */
async function visitor(path: string) {
  const res = await fetch(`${f.url}${path}`);
  const cookies = res.headers.getSetCookie();
  const html = await res.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const cookie = cookies.map((c) => c.split(';')[0]).join('; ');
  return { cookies, csrf, xsrf, cookie };
}

async function post(path: string, cookie: string, form: Record<string, string>) {
  return fetch(`${f.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams(form),
  });
}

test('cookies are HttpOnly and SameSite=Lax; forms without the CSRF token are refused', async () => {
  const v = await visitor('/signin');
  assert.ok(v.csrf);
  assert.match(v.cookies.join('\n'), /svc_csrf=[^;]+;.*HttpOnly/i);
  assert.match(v.cookies.join('\n'), /SameSite=Lax/i);
  const noToken = await post('/signin', v.cookie, { email: 'other@example.com', password: 'correct horse battery staple' });
  assert.equal(noToken.status, 403);
  const wrong = await post('/signin', v.cookie, {
    csrf: 'x'.repeat(43),
    email: 'other@example.com',
    password: 'correct horse battery staple',
  });
  assert.equal(wrong.status, 403);
  const ok = await post('/signin', v.cookie, {
    csrf: v.csrf,
    email: 'other@example.com',
    password: 'correct horse battery staple',
    return: '//evil.example/',
  });
  assert.equal(ok.status, 303);
  assert.equal(ok.headers.get('location'), '/');
  assert.match(ok.headers.getSetCookie().join('\n'), /svc_session=[^;]+;.*HttpOnly/i);
  const signup = await post('/signup', v.cookie, { email: 'new@example.com', password: 'correct horse battery staple' });
  assert.equal(signup.status, 403);
});

test('sign-in failures are throttled per account, then per IP; the right password is refused while blocked', async () => {
  const v = await visitor('/signin');
  for (let i = 0; i < 3; i++) {
    assert.equal((await post('/signin', v.cookie, { csrf: v.csrf, email: 'victim@example.com', password: `wrong-${i}` })).status, 401);
  }
  const blocked = await post('/signin', v.cookie, { csrf: v.csrf, email: 'victim@example.com', password: 'correct horse battery staple' });
  assert.equal(blocked.status, 429);
  assert.ok(Number(blocked.headers.get('retry-after')) > 0);
  // Other accounts are still reachable from this IP until the per-IP limit.
  for (let i = 0; i < 3; i++) await post('/signin', v.cookie, { csrf: v.csrf, email: `nobody${i}@example.com`, password: 'x' });
  const ipBlocked = await post('/signin', v.cookie, { csrf: v.csrf, email: 'other@example.com', password: 'correct horse battery staple' });
  assert.equal(ipBlocked.status, 429);
});

test('device code entry: unknown codes are throttled per IP; the page explains unknown codes', async () => {
  await f.client.del(...(await f.client.keys('svc:oidc:throttle:*')));
  const dc = await postJson(`${f.url}/api/oauth/device/code`, { client_id: 'svc-mcp' });
  const v = await visitor('/device');
  assert.ok(v.xsrf);
  const first = await post('/device', v.cookie, { xsrf: v.xsrf, user_code: 'BCDF-0000', confirm: 'yes' });
  assert.equal(first.status, 200);
  assert.match(await first.text(), /That code is unknown/);
  for (let i = 0; i < 2; i++) await post('/device', v.cookie, { xsrf: v.xsrf, user_code: `BCDF-000${i + 1}`, confirm: 'yes' });
  const blocked = await post('/device', v.cookie, { xsrf: v.xsrf, user_code: String(dc.body['user_code']), confirm: 'yes' });
  assert.equal(blocked.status, 429);
});

test('the code entry form checks the provider xsrf token', async () => {
  await f.client.del(...(await f.client.keys('svc:oidc:throttle:*')));
  const v = await visitor('/device');
  const res = await post('/device', v.cookie, { xsrf: 'forged', user_code: 'BCDF-0000', confirm: 'yes' });
  assert.notEqual(res.status, 303);
  assert.match(await res.text(), /went wrong|error/i);
});

test('dynamic registration is limited per IP: 429 with Retry-After once over the window', async () => {
  const register = () =>
    postJson(`${f.url}/api/oauth/register`, {
      client_name: 'flood',
      redirect_uris: ['http://127.0.0.1:9/cb'],
      token_endpoint_auth_method: 'none',
    });
  for (let i = 0; i < LIMITS.registrationPerIp.limit; i++) assert.equal((await register()).status, 201, `registration ${i + 1}`);
  const refused = await register();
  assert.equal(refused.status, 429);
  assert.equal(refused.body['error'], 'temporarily_unavailable');
  assert.match(String(refused.body['error_description']), /too many client registrations from this address; retry in \d+ s/);
  assert.ok(Number(refused.headers.get('retry-after')) > 0);
  await f.client.del(...(await f.client.keys('svc:oidc:throttle:register-ip:*')));
  assert.equal((await register()).status, 201, 'a new window admits again');
});
