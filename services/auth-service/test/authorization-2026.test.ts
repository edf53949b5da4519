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

test('errors before the person has seen svc stay on svc page for unverified clients, never redirected (RFC 9700 §4.11.2)', async () => {
  const redirect = 'https://evil.example/cb';
  const reg = await register({ application_type: 'web', redirect_uris: [redirect], client_name: 'Unverified' });
  assert.equal(reg.status, 201);
  const clientId = String(reg.body['client_id']);
  const valid = {
    client_id: clientId,
    redirect_uri: redirect,
    response_type: 'code',
    state: 's1',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  };
  // Each case breaks one thing about an otherwise valid request.
  const cases: Record<string, string | undefined>[] = [
    { code_challenge: undefined, code_challenge_method: undefined },
    { code_challenge_method: 'plain' },
    { resource: 'https://elsewhere.example/mcp/x' },
    { resource: `${f.config.baseUrl}/mcp/no-such-project` },
    { response_type: 'token' },
    { response_type: 'code id_token' },
    { prompt: 'bogus' },
    { prompt: 'none' },
    { response_mode: 'form_post', code_challenge: undefined },
    { response_mode: 'web_message', code_challenge: undefined },
    { max_age: 'x' },
    { request: 'e30.e30.' },
  ];
  for (const change of cases) {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...valid, ...change })) if (v !== undefined) params.set(k, v);
    const res = await fetch(`${f.url}/api/oauth/authorize?${params}`, { redirect: 'manual' });
    const body = await res.text();
    assert.ok(res.status >= 400 && res.status < 500, `${JSON.stringify(change)}: ${res.status} ${res.headers.get('location')}`);
    assert.equal(res.headers.get('location'), null, JSON.stringify(change));
    assert.ok(!body.includes('evil.example'), `${JSON.stringify(change)}: the page neither posts nor links to the client`);
    assert.match(body, /Something went wrong/);
  }
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
