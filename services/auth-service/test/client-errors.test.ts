/**
 * Input a client got wrong is answered 4xx, never 5xx, and every error page is ours (layout,
 * security headers): undecodable cookies, the device pages reached without an earlier visit,
 * malformed paths. The fuzz suite (tests/fuzz) covers the rest at random; these are its finds.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startAuth, type AuthFixture } from './support.ts';

let f: AuthFixture;
before(async () => {
  f = await startAuth();
});
after(async () => {
  await f.close();
});

function assertOurs(res: Response, html: string, what: string): void {
  assert.ok(res.status < 500, `${what}: ${res.status}`);
  assert.equal(res.headers.get('x-frame-options'), 'DENY', `${what}: security headers`);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff', `${what}: security headers`);
  assert.match(html, /^<!doctype html>/, `${what}: our page`);
  assert.doesNotMatch(html, /\bat [\w.]+ \(|node_modules|TypeError|URIError/, `${what}: no internal detail`);
}

test('cookies that are not valid percent-encoding are ignored on every page', async () => {
  for (const path of ['/', '/signin', '/signup', '/signout', '/device']) {
    for (const cookie of ['svc_session=%E0%A4%A', 'svc_csrf=%', 'svc_session=%ZZ; svc_csrf=%C0%80', '_session=%E0%A4%A; _interaction=%']) {
      const res = await fetch(`${f.url}${path}`, { headers: { cookie, accept: 'text/html' } });
      assertOurs(res, await res.text(), `${path} with ${cookie}`);
      assert.equal(res.status, 200, `${path} with ${cookie}`);
    }
  }
  const form = await fetch(`${f.url}/signin`, {
    method: 'POST',
    headers: { cookie: 'svc_csrf=%E0%A4%A', 'content-type': 'application/x-www-form-urlencoded' },
    body: 'csrf=x&email=a%40b.c&password=x',
  });
  assertOurs(form, await form.text(), 'POST /signin with a bad cookie');
  assert.equal(form.status, 403);
});

test("the device pages without an earlier visit: our 400 page, not the provider's plain-text 500", async () => {
  const cases: [string, RequestInit][] = [
    ['/device', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'user_code=BCDF-1234' }],
    ['/device', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'xsrf=x&confirm=yes' }],
    ['/device/x', {}],
    ['/device/x', { headers: { accept: 'text/html' } }],
    ['/device/x', { headers: { cookie: '_session=abc' } }],
  ];
  for (const [path, init] of cases) {
    const res = await fetch(`${f.url}${path}`, { redirect: 'manual', ...init });
    assertOurs(res, await res.text(), `${init.method ?? 'GET'} ${path}`);
    assert.equal(res.status, 400, `${init.method ?? 'GET'} ${path}`);
  }
});

test('malformed percent-encoding in a path or query: 400 or the page, never 5xx', async () => {
  for (const path of ['/interaction/%E0%A4%A', '/interaction/%', '/signin?return=%E0%A4%A', '/device?code=%FF', '/device/%E0%A4%A']) {
    const res = await fetch(`${f.url}${path}`, { headers: { accept: 'text/html' } });
    assertOurs(res, await res.text(), path);
  }
  const api = await fetch(`${f.url}/api/oauth/authorize?client_id=%E0%A4%A`);
  assert.ok(api.status < 500, `authorize: ${api.status}`);
});
