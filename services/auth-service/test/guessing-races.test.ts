/**
 * Brute-force limits hold under concurrency (docs/security.md "Guessing"): each attempt is checked
 * and counted in one Redis script, so concurrent requests cannot all be checked against the same
 * stale count. Looking a user code up with `GET /device?code=` is a guess like a POST, counted in
 * the same throttle. Concurrent polls of one device code get slow_down.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { DEVICE_GRANT, postForm, postJson, startAuth, type AuthFixture } from './support.ts';

let f: AuthFixture;
const LIMITS = {
  signInPerIp: { limit: 1000, windowSeconds: 60 },
  signInPerAccount: { limit: 5, windowSeconds: 60 },
  codeEntryPerIp: { limit: 10, windowSeconds: 60 },
  registrationPerIp: { limit: 4, windowSeconds: 60 },
};
before(async () => {
  f = await startAuth({ limits: LIMITS });
  await f.accounts.users.create({ emailVerified: true, email: 'victim@example.com', password: 'correct horse battery staple' });
});
after(async () => {
  await f.close();
});
beforeEach(async () => {
  const keys = await f.client.keys('svc:oidc:throttle:*');
  if (keys.length) await f.client.del(...keys);
});

async function visitor(path: string) {
  const res = await fetch(`${f.url}${path}`);
  const html = await res.text();
  return {
    csrf: /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '',
    xsrf: /name="xsrf" value="([^"]+)"/.exec(html)?.[1] ?? '',
    cookie: res.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; '),
  };
}

const postPage = (path: string, cookie: string, form: Record<string, string>) =>
  fetch(`${f.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams(form),
  });

const statuses = async (responses: Promise<Response>[]) =>
  Promise.all(responses.map(async (r) => ((await r).body?.cancel(), (await r).status)));
const count = (list: number[], status: number) => list.filter((s) => s === status).length;

test('60 concurrent wrong passwords for one account: at most the limit (5) are checked', async () => {
  const v = await visitor('/signin');
  const all = await statuses(
    Array.from({ length: 60 }, (_, i) =>
      postPage('/signin', v.cookie, { csrf: v.csrf, email: 'victim@example.com', password: `wrong-${i}` }),
    ),
  );
  assert.equal(count(all, 401), 5, `checked: ${count(all, 401)}`);
  assert.equal(count(all, 429), 55);
});

test('a right password after failures still works below the limit, and only failures count', async () => {
  const v = await visitor('/signin');
  for (let i = 0; i < 4; i++) await postPage('/signin', v.cookie, { csrf: v.csrf, email: 'victim@example.com', password: 'nope' });
  const ok = await postPage('/signin', v.cookie, { csrf: v.csrf, email: 'victim@example.com', password: 'correct horse battery staple' });
  assert.equal(ok.status, 303);
  assert.deepEqual(await f.client.keys('svc:oidc:throttle:signin-account:victim@example.com|*'), []);
});

test('100 concurrent code guesses: at most the limit (10) are looked up', async () => {
  const v = await visitor('/device');
  const all = await statuses(
    Array.from({ length: 100 }, (_, i) =>
      postPage('/device', v.cookie, { xsrf: v.xsrf, user_code: `BCDF-${String(i).padStart(4, '0')}`, confirm: 'yes' }),
    ),
  );
  assert.equal(100 - count(all, 429), 10, `looked up: ${100 - count(all, 429)}`);
});

test('GET /device?code= is a guess in the same throttle; pending codes cost nothing', async () => {
  const dc = await postJson(`${f.url}/api/oauth/device/code`, { client_id: 'svc-mcp' });
  const pending = String(dc.body['user_code']);
  const look = async (code: string) => {
    const res = await fetch(`${f.url}/device?code=${encodeURIComponent(code)}`);
    return { status: res.status, html: await res.text() };
  };
  for (let i = 0; i < 3; i++) assert.match((await look(pending)).html, /Check that this code matches/);
  const all = await statuses(Array.from({ length: 30 }, (_, i) => fetch(`${f.url}/device?code=BCDF-${String(i).padStart(4, '0')}`)));
  assert.equal(30 - count(all, 429), 10);
  // The budget is spent: a POST from this source is refused too, and so is a lookup of the pending
  // code, which therefore reveals nothing either.
  const v = await visitor('/device');
  assert.equal((await postPage('/device', v.cookie, { xsrf: v.xsrf, user_code: 'BCDF-9999', confirm: 'yes' })).status, 429);
  const blocked = await look(pending);
  assert.equal(blocked.status, 429);
  assert.doesNotMatch(blocked.html, new RegExp(pending));
});

test('ten concurrent polls of a new device code: one authorization_pending, the rest slow_down', async () => {
  const dc = await postJson(`${f.url}/api/oauth/device/code`, { client_id: 'svc-mcp' });
  const poll = () =>
    postForm(`${f.url}/api/oauth/token`, { grant_type: DEVICE_GRANT, device_code: String(dc.body['device_code']), client_id: 'svc-mcp' });
  const answers = await Promise.all(Array.from({ length: 10 }, poll));
  const errors = answers.map((a) => a.body['error']);
  assert.equal(errors.filter((e) => e === 'authorization_pending').length, 1, errors.join(','));
  assert.equal(errors.filter((e) => e === 'slow_down').length, 9);
  assert.ok(answers.every((a) => a.status === 400));
});

test('20 concurrent client registrations: at most the limit (4) are stored', async () => {
  const all = await Promise.all(
    Array.from({ length: 20 }, () => postJson(`${f.url}/api/oauth/register`, { redirect_uris: ['http://127.0.0.1:9/cb'] })),
  );
  assert.equal(all.filter((r) => r.status === 201).length, 4);
  assert.equal((await f.client.keys('svc:oidc:Client:*')).length, 4);
});
