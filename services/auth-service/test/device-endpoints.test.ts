/**
 * The device authorization and token endpoints over HTTP (RFC 8628; docs/contract.md "Device flow"
 * and "Device authorization response"): response shape, JSON and form bodies, polling errors, the
 * client_id rule, the auto_provision rules and registration for the device grant. Approval by a
 * person is in tests/auth.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DEVICE_GRANT, postForm, postJson, startAuth, type AuthFixture } from './support.ts';
import { oidcRecordKey } from '@svc/accounts';

let f: AuthFixture;
before(async () => {
  f = await startAuth();
});
after(async () => {
  await f.close();
});

const poll = (deviceCode: unknown, clientId: string) =>
  postJson(`${f.url}/api/oauth/device/token`, { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: clientId });

test('authorization server metadata lives at the issuer root and names our endpoints', async () => {
  const m = (await (await fetch(`${f.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
  assert.equal(m['issuer'], f.url);
  assert.equal(m['device_authorization_endpoint'], `${f.url}/api/oauth/device/code`);
  assert.equal(m['token_endpoint'], `${f.url}/api/oauth/token`);
  assert.equal(m['registration_endpoint'], `${f.url}/api/oauth/register`);
  assert.equal(m['revocation_endpoint'], `${f.url}/api/oauth/revoke`);
  assert.equal(m['introspection_endpoint'], `${f.url}/api/oauth/introspect`);
  assert.equal(m['jwks_uri'], `${f.url}/api/oauth/jwks`);
  assert.deepEqual(m['code_challenge_methods_supported'], ['S256']);
  assert.ok((m['grant_types_supported'] as string[]).includes(DEVICE_GRANT));
  assert.ok((m['token_endpoint_auth_methods_supported'] as string[]).includes('none'));
  assert.equal(m['client_id_metadata_document_supported'], true);
  const oidc = await fetch(`${f.url}/.well-known/openid-configuration`);
  assert.equal(oidc.status, 200);
  assert.equal((await fetch(`${f.url}/.well-known/oauth-protected-resource`)).status, 404);
});

test('device code response: contract fields, XXXX-9999 user code, 1800 s, interval 5 (JSON and form)', async () => {
  const r = await postJson(`${f.url}/api/oauth/device/code`, { client_id: 'svc-mcp' });
  assert.equal(r.status, 200);
  assert.match(String(r.body['user_code']), /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[0-9]{4}$/);
  assert.equal(r.body['verification_uri'], `${f.url}/device`);
  assert.equal(r.body['verification_uri_complete'], `${f.url}/device?code=${String(r.body['user_code'])}`);
  assert.equal(r.body['expires_in'], 1800);
  assert.equal(r.body['interval'], 5);
  assert.equal(typeof r.body['device_code'], 'string');
  const form = await postForm(`${f.url}/api/oauth/device/code`, { client_id: 'svc-cli' });
  assert.equal(form.status, 200);
  assert.match(String(form.body['user_code']), /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[0-9]{4}$/);
  // The code the library generated first is no longer a valid entry: only ours is indexed.
  const keys = await f.client.keys('svc:oidc:user-code:*');
  assert.ok(
    keys.every((k) => /^svc:oidc:user-code:[BCDFGHJKLMNPQRSTVWXZ]{4}[0-9]{4}$/.test(k)),
    keys.join(','),
  );
});

test('polling: authorization_pending, then slow_down adding 5 s, and another client_id is refused', async () => {
  const r = await postJson(`${f.url}/api/oauth/device/code`, { client_id: 'svc-mcp' });
  const first = await poll(r.body['device_code'], 'svc-mcp');
  assert.equal(first.status, 400);
  assert.equal(first.body['error'], 'authorization_pending');
  const second = await poll(r.body['device_code'], 'svc-mcp');
  assert.equal(second.body['error'], 'slow_down');
  assert.equal(second.body['interval'], 10);
  const third = await poll(r.body['device_code'], 'svc-mcp');
  assert.equal(third.body['interval'], 15);
  const foreign = await poll(r.body['device_code'], 'svc-companion');
  assert.equal(foreign.body['error'], 'invalid_grant');
  const form = await postForm(`${f.url}/api/oauth/token`, { grant_type: DEVICE_GRANT, device_code: 'nope', client_id: 'svc-mcp' });
  assert.equal(form.body['error'], 'invalid_grant');
});

test('an expired device code answers expired_token', async () => {
  const r = await postJson(`${f.url}/api/oauth/device/code`, { client_id: 'svc-companion' });
  const key = oidcRecordKey('DeviceCode', String(r.body['device_code']));
  const payload = JSON.parse((await f.client.hget(key, 'payload')) ?? '{}') as Record<string, unknown>;
  await f.client.hset(key, 'payload', JSON.stringify({ ...payload, exp: Math.floor(Date.now() / 1000) - 1 }));
  const t = await poll(r.body['device_code'], 'svc-companion');
  assert.equal(t.body['error'], 'expired_token');
});

test('auto_provision: accepted for create-svc only, invalid_client for unregistered IDs', async () => {
  const ok = await postJson(`${f.url}/api/oauth/device/code`, { client_id: 'create-svc', auto_provision: true });
  assert.equal(ok.status, 200);
  const stored = JSON.parse((await f.client.hget(oidcRecordKey('DeviceCode', String(ok.body['device_code'])), 'payload')) ?? '{}');
  assert.equal(stored.params.auto_provision, 'true');
  for (const clientId of ['svc-mcp', 'svc-cli', 'svc-companion']) {
    const r = await postJson(`${f.url}/api/oauth/device/code`, { client_id: clientId, auto_provision: true });
    assert.equal(r.status, 400, clientId);
    assert.equal(r.body['error'], 'invalid_request');
  }
  const unknown = await postJson(`${f.url}/api/oauth/device/code`, { client_id: 'no-such-client', auto_provision: true });
  assert.equal(unknown.status, 401);
  assert.equal(unknown.body['error'], 'invalid_client');
  const plain = await postJson(`${f.url}/api/oauth/device/code`, { client_id: 'no-such-client' });
  assert.equal(plain.body['error'], 'invalid_client');
  const notBool = await postJson(`${f.url}/api/oauth/device/code`, { client_id: 'create-svc', auto_provision: 'yes' });
  assert.equal(notBool.body['error'], 'invalid_request');
});

test('project_name: kept with auto_provision for create-svc; refused alone, empty, too long or with control or bidi characters', async () => {
  const code = (body: Record<string, unknown>) => postJson(`${f.url}/api/oauth/device/code`, { client_id: 'create-svc', ...body });
  const ok = await code({ auto_provision: true, project_name: 'My Docs' });
  assert.equal(ok.status, 200);
  const stored = JSON.parse((await f.client.hget(oidcRecordKey('DeviceCode', String(ok.body['device_code'])), 'payload')) ?? '{}');
  assert.equal(stored.params.project_name, 'My Docs');
  for (const [body, why] of [
    [{ project_name: 'docs' }, 'without auto_provision'],
    [{ auto_provision: false, project_name: 'docs' }, 'with auto_provision=false'],
    [{ auto_provision: true, project_name: '' }, 'empty'],
    [{ auto_provision: true, project_name: 'x'.repeat(61) }, 'too long'],
    [{ auto_provision: true, project_name: 'a\u0007b' }, 'a control character'],
    [{ auto_provision: true, project_name: 'docs\u202Etxt.exe' }, 'a bidi override'],
  ] as const) {
    const r = await code(body);
    assert.equal(r.status, 400, why);
    assert.equal(r.body['error'], 'invalid_request', why);
  }
});

test('malformed bodies get invalid_request (413 past the size limit), never a 500', async () => {
  const bad = await fetch(`${f.url}/api/oauth/device/code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"client_id":',
  });
  assert.equal(bad.status, 400);
  assert.equal(((await bad.json()) as { error: string }).error, 'invalid_request');
  const arr = await fetch(`${f.url}/api/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[1]' });
  assert.equal(arr.status, 400);
  const big = await fetch(`${f.url}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ a: 'x'.repeat(70_000) }),
  });
  assert.equal(big.status, 413);
  assert.match(((await big.json()) as { error_description: string }).error_description, /larger than the limit \(57344 bytes\)/);
  const xml = await fetch(`${f.url}/api/oauth/token`, { method: 'POST', headers: { 'content-type': 'text/xml' }, body: '<a/>' });
  assert.equal(xml.status, 400);
  // The pages' forms too: a huge or undecodable form is the client's problem, said on a page.
  for (const path of ['/signin', '/signup', '/signout']) {
    const huge = await fetch(`${f.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `email=${'a'.repeat(100_000)}`,
    });
    assert.equal(huge.status, 413, path);
    assert.match(await huge.text(), /The form is too large\. Nothing was changed\./);
  }
  const charset = await fetch(`${f.url}/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=klingon' },
    body: 'email=a',
  });
  assert.ok(charset.status >= 400 && charset.status < 500, `unsupported charset: ${charset.status}`);
});

test('dynamic registration: public clients with https or loopback redirect URIs only', async () => {
  const reg = (body: Record<string, unknown>) => postJson(`${f.url}/api/oauth/register`, body);
  const ok = await reg({ client_name: 'ok', redirect_uris: ['http://127.0.0.1:33418/callback'] });
  assert.equal(ok.status, 201);
  assert.equal(ok.body['token_endpoint_auth_method'], 'none');
  assert.equal((await reg({ redirect_uris: ['https://app.example.com/cb'] })).status, 201);
  // MCP clients register the resource scope from the protected resource metadata.
  assert.equal((await reg({ redirect_uris: ['http://localhost:5555/cb'], scope: 'mcp' })).status, 201);
  assert.equal((await reg({ redirect_uris: ['http://evil.example.com/cb'] })).body['error'], 'invalid_redirect_uri');
  assert.equal(
    (await reg({ redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'client_secret_basic' })).body['error'],
    'invalid_client_metadata',
  );
  assert.equal(
    (await reg({ redirect_uris: ['https://a.example/cb'], grant_types: ['client_credentials'] })).body['error'],
    'invalid_client_metadata',
  );
  // A registered client is "registered" for the auto_provision rule too.
  const r = await postJson(`${f.url}/api/oauth/device/code`, { client_id: ok.body['client_id'], auto_provision: true });
  assert.equal(r.body['error'], 'invalid_request');
});

test('dynamic registration: public clients that are not web clients may register for the device grant, without a redirect URI', async () => {
  const reg = (body: Record<string, unknown>) => postJson(`${f.url}/api/oauth/register`, body);
  // As a headless MCP client registers (RFC 8628 with RFC 7591): no redirect URI, no response type.
  const device = await reg({ client_name: 'headless', grant_types: [DEVICE_GRANT, 'refresh_token'] });
  assert.equal(device.status, 201, JSON.stringify(device.body));
  assert.deepEqual(device.body['grant_types'], [DEVICE_GRANT, 'refresh_token']);
  assert.deepEqual(device.body['redirect_uris'], []);
  assert.deepEqual(device.body['response_types'], []);
  assert.equal(device.body['token_endpoint_auth_method'], 'none');
  const native = await reg({ application_type: 'native', grant_types: [DEVICE_GRANT], redirect_uris: [] });
  assert.equal(native.status, 201, JSON.stringify(native.body));
  // Both flows: the redirect URIs follow the usual rule.
  const both = await reg({
    grant_types: ['authorization_code', DEVICE_GRANT, 'refresh_token'],
    redirect_uris: ['http://127.0.0.1:4000/cb'],
  });
  assert.equal(both.status, 201, JSON.stringify(both.body));
  assert.equal((await reg({ grant_types: ['authorization_code', DEVICE_GRANT] })).body['error'], 'invalid_redirect_uri');
  assert.equal(
    (await reg({ grant_types: [DEVICE_GRANT], redirect_uris: ['http://evil.example.com/cb'] })).body['error'],
    'invalid_redirect_uri',
  );
  // A web client has a browser, and the authorization-code flow.
  const web = await reg({ application_type: 'web', grant_types: [DEVICE_GRANT], redirect_uris: ['https://app.example.com/cb'] });
  assert.equal(web.body['error'], 'invalid_client_metadata');
  // Still public clients only.
  const secret = await reg({ grant_types: [DEVICE_GRANT], token_endpoint_auth_method: 'client_secret_post' });
  assert.equal(secret.body['error'], 'invalid_client_metadata');
  // The registered client starts a device flow and polls as a first-party one does.
  const started = await postJson(`${f.url}/api/oauth/device/code`, { client_id: device.body['client_id'] });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  assert.match(String(started.body['user_code']), /^[A-Z]{4}-\d{4}$/);
  const pending = await poll(started.body['device_code'], String(device.body['client_id']));
  assert.equal(pending.body['error'], 'authorization_pending');
  // A client registered without the device grant is refused it.
  const codeOnly = await reg({ redirect_uris: ['http://127.0.0.1:4000/cb'] });
  const refused = await postJson(`${f.url}/api/oauth/device/code`, { client_id: codeOnly.body['client_id'] });
  assert.equal(refused.status, 400);
  assert.equal(refused.body['error'], 'invalid_request');
});

test('health, readiness and metrics', async () => {
  assert.equal((await fetch(`${f.url}/healthz`)).status, 200);
  assert.deepEqual(await (await fetch(`${f.url}/readyz`)).json(), { status: 'ready', redis: 'ok' });
  const m = await (await fetch(`${f.url}/metrics`)).text();
  assert.match(m, /svc_auth_http_requests_total/);
  assert.match(m, /svc_auth_tokens_issued_total\{kind="device_code"\}/);
});
