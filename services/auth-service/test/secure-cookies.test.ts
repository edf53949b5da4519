/**
 * With an https issuer every cookie is Secure, including oidc-provider's session cookies on a
 * request that reached the pod without X-Forwarded-Proto (docs/security.md "Sessions").
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startAuth, type AuthFixture } from './support.ts';

let f: AuthFixture;
before(async () => {
  f = await startAuth({ env: { AUTH_URL: 'https://auth.example', TRUST_PROXY: '1' } });
});
after(async () => {
  await f.close();
});

test('https issuer: provider and page cookies are Secure with or without X-Forwarded-Proto', async () => {
  for (const headers of [{}, { 'x-forwarded-proto': 'http' }, { 'x-forwarded-proto': 'https' }] as Record<string, string>[]) {
    const device = await fetch(`${f.url}/device`, { headers });
    await device.text();
    const signin = await fetch(`${f.url}/signin`, { headers });
    await signin.text();
    const cookies = [...device.headers.getSetCookie(), ...signin.headers.getSetCookie()];
    assert.ok(
      cookies.some((c) => c.startsWith('_session=')),
      `a provider session cookie (${JSON.stringify(headers)})`,
    );
    assert.ok(
      cookies.some((c) => c.startsWith('svc_csrf=')),
      'a page cookie',
    );
    for (const c of cookies) assert.match(c, /;\s*secure/i, `${c.split('=')[0]} without Secure (${JSON.stringify(headers)})`);
  }
});
