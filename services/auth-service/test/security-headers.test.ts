/**
 * Every HTML page carries the same security headers (docs/auth-service.md "Pages"), including
 * oidc-provider's error page at the authorize endpoint (under /api/); an https AUTH_URL adds
 * Strict-Transport-Security to every answer.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { HSTS_MAX_AGE_SECONDS } from '@svc/config';
import { PAGE_HEADERS } from '../src/http/security-headers.ts';
import { startAuth, type AuthFixture } from './support.ts';

let plain: AuthFixture;
let secure: AuthFixture;
before(async () => {
  plain = await startAuth();
  secure = await startAuth({ env: { AUTH_URL: 'https://auth.example', TRUST_PROXY: '1' } });
});
after(async () => {
  await plain.close();
  await secure.close();
});

/** The authorize endpoint's own HTML error page: an unknown client cannot be redirected to. */
const authorizeError = (f: AuthFixture) =>
  `${f.url}/api/oauth/authorize?client_id=nobody&response_type=code&redirect_uri=https%3A%2F%2Fx.example%2Fcb`;

test("the authorize endpoint's HTML error page carries the page security headers", async () => {
  const res = await fetch(authorizeError(plain), { redirect: 'manual' });
  assert.equal(res.status, 400);
  assert.match(res.headers.get('content-type') ?? '', /text\/html/);
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /frame-ancestors 'none'/);
  assert.match(csp, /default-src 'none'/);
  const page = await fetch(`${plain.url}/signin`);
  await page.body?.cancel();
  for (const name of Object.keys(PAGE_HEADERS)) {
    assert.equal(res.headers.get(name), PAGE_HEADERS[name], name);
    assert.equal(page.headers.get(name), PAGE_HEADERS[name], `/signin ${name}`);
  }
  assert.equal(res.headers.get('strict-transport-security'), null, 'no HSTS over http');
  await res.body?.cancel();
});

test('an https AUTH_URL sends Strict-Transport-Security on pages, the error page and the API', async () => {
  const hsts = `max-age=${HSTS_MAX_AGE_SECONDS}`;
  for (const url of [
    `${secure.url}/signin`,
    authorizeError(secure),
    `${secure.url}/.well-known/oauth-authorization-server`,
    `${secure.url}/api/oauth/jwks`,
    `${secure.url}/healthz`,
  ]) {
    const res = await fetch(url, { redirect: 'manual' });
    assert.equal(res.headers.get('strict-transport-security'), hsts, url);
    await res.body?.cancel();
  }
});
