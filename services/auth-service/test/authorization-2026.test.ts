/**
 * MCP 2026-07-28 authorization at the authorization server: RFC 9207 `iss` on authorization
 * responses, errors included, and advertised in the metadata; `application_type` honoured at
 * dynamic registration (web clients https only; native clients also loopback http and private-use
 * schemes, RFC 8252 §7).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { postJson, startAuth, type AuthFixture } from './support.ts';

let f: AuthFixture;
before(async () => {
  f = await startAuth({ limits: { registrationPerIp: { limit: 1000, windowSeconds: 60 } } });
});
after(async () => {
  await f.close();
});

const register = (body: Record<string, unknown>) => postJson(`${f.url}/api/oauth/register`, body);

test('the metadata advertises iss in authorization responses, and offline_access', async () => {
  const meta = (await (await fetch(`${f.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
  assert.equal(meta['authorization_response_iss_parameter_supported'], true);
  assert.ok((meta['scopes_supported'] as string[]).includes('offline_access'));
});

test('an authorization error sent back to the client carries iss (RFC 9207 §2)', async () => {
  const redirect = 'http://127.0.0.1:45998/cb';
  const reg = await register({ redirect_uris: [redirect], client_name: 'iss check' });
  assert.equal(reg.status, 201);
  // No PKCE challenge: refused, and the refusal goes to the redirect URI.
  const url = new URL(`${f.url}/api/oauth/authorize`);
  url.search = new URLSearchParams({
    client_id: String(reg.body['client_id']),
    redirect_uri: redirect,
    response_type: 'code',
    state: 's1',
  }).toString();
  const res = await fetch(url, { redirect: 'manual' });
  assert.equal(res.status, 303);
  const back = new URL(res.headers.get('location') ?? '');
  assert.equal(back.origin + back.pathname, redirect);
  assert.equal(back.searchParams.get('error'), 'invalid_request');
  assert.equal(back.searchParams.get('iss'), f.url);
  assert.equal(back.searchParams.get('state'), 's1');
});

test('application_type web: https redirect URIs only', async () => {
  assert.equal((await register({ application_type: 'web', redirect_uris: ['https://app.example.com/cb'] })).status, 201);
  for (const uri of ['http://127.0.0.1:9/cb', 'com.example.app:/cb', 'https://localhost/cb']) {
    const res = await register({ application_type: 'web', redirect_uris: [uri] });
    assert.equal(res.status, 400, uri);
    assert.equal(res.body['error'], 'invalid_redirect_uri');
  }
});

test('application_type native: loopback http and private-use schemes too', async () => {
  for (const uri of ['http://127.0.0.1:9/cb', 'http://[::1]:9/cb', 'com.example.app:/cb', 'https://app.example.com/cb']) {
    const res = await register({ application_type: 'native', redirect_uris: [uri] });
    assert.equal(res.status, 201, `${uri}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body['application_type'], 'native');
  }
  for (const uri of ['http://app.example.com/cb', 'myapp:/cb', 'javascript:alert(1)', 'https://127.0.0.1/cb']) {
    const res = await register({ application_type: 'native', redirect_uris: [uri] });
    assert.equal(res.status, 400, uri);
  }
});

test('without application_type: https or loopback http, as before; other types refused', async () => {
  assert.equal((await register({ redirect_uris: ['http://127.0.0.1:9/cb'] })).status, 201);
  assert.equal((await register({ redirect_uris: ['com.example.app:/cb'] })).status, 400);
  const odd = await register({ application_type: 'desktop', redirect_uris: ['https://app.example.com/cb'] });
  assert.equal(odd.status, 400);
  assert.equal(odd.body['error'], 'invalid_client_metadata');
});
