/** The REST surface: tools over REST with the same gates and headers, /me and /projects. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { post, seed, startFixture, type GatewayFixture } from './support.ts';

let f: GatewayFixture;
before(async () => {
  f = await startFixture();
});
after(() => f.close());

test('a tool over REST: the result, the rate-limit headers, the error shape', async () => {
  const s = await seed(f.accounts, { level: 'VIEWER' });
  let res = await post(f.url, `/api/v1/projects/${s.project}/tools/svc_help`, {}, { 'X-API-Key': s.key });
  assert.equal(res.status, 200);
  assert.match(res.body.content[0].text, /Tools you can call/);
  assert.match(res.headers.get('x-ratelimit-remaining') ?? '', /^\d+$/);
  res = await post(f.url, `/api/v1/projects/${s.project}/tools/svc_help`, {});
  assert.equal(res.status, 401);
  assert.deepEqual(Object.keys(res.body.error).sort(), ['code', 'message', 'remedy']);
  assert.equal(res.body.error.message, 'Missing authentication');
  res = await post(f.url, `/api/v1/projects/${s.project}/tools/svc_nope`, {}, { 'X-API-Key': s.key });
  assert.equal(res.status, 404);
  res = await post(f.url, `/api/v1/projects/${s.project}/tools/svc_request_access`, { requested_level: 3 }, { 'X-API-Key': s.key });
  assert.equal(res.status, 400);
  assert.match(res.body.error.message, /requested_level must be string/);
  res = await post(f.url, `/api/v1/projects/${s.project}/tools/svc_help`, '{oops', { 'X-API-Key': s.key });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, 'parse_error');
  res = await post(f.url, `/api/v1/projects/${s.project}/tools/svc_help`, '[]', { 'X-API-Key': s.key });
  assert.equal(res.status, 400);
});

test('GET /api/v1/me and /api/v1/projects for a personal key', async () => {
  const s = await seed(f.accounts);
  const personal = await f.accounts.keys.createUserKey({ userId: s.userId });
  const me = await (await fetch(`${f.url}/api/v1/me`, { headers: { 'X-API-Key': personal.key } })).json();
  assert.equal(me.user.email, s.email);
  assert.equal(me.key.kind, 'user_key');
  assert.ok(!JSON.stringify(me).includes(personal.key));
  const projects = await (await fetch(`${f.url}/api/v1/projects`, { headers: { Authorization: `Bearer ${personal.key}` } })).json();
  assert.deepEqual(projects.projects, [{ slug: s.project, workspace: s.workspace, role: 'ADMIN' }]);
  const bad = await fetch(`${f.url}/api/v1/me`, { headers: { 'X-API-Key': 'svc-user-nope' } });
  assert.equal(bad.status, 401);
  assert.equal((await bad.json()).error.message, 'Invalid API key');
});

test('DELETE /api/v1/me/key: a key revokes itself and is refused from then on', async () => {
  const s = await seed(f.accounts);
  const personal = await f.accounts.keys.createUserKey({ userId: s.userId });
  const other = await f.accounts.keys.createUserKey({ userId: s.userId, clientId: 'other' });
  const res = await fetch(`${f.url}/api/v1/me/key`, { method: 'DELETE', headers: { 'X-API-Key': personal.key } });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.revoked.kind, 'user_key');
  assert.ok(!JSON.stringify(body).includes(personal.key));
  const again = await fetch(`${f.url}/api/v1/me`, { headers: { 'X-API-Key': personal.key } });
  assert.equal(again.status, 401);
  assert.equal((await again.json()).error.message, 'Invalid API key');
  // Only the presented key: the user's other keys still work.
  assert.equal((await fetch(`${f.url}/api/v1/me`, { headers: { 'X-API-Key': other.key } })).status, 200);
  assert.equal((await fetch(`${f.url}/api/v1/me/key`, { method: 'DELETE' })).status, 401);
});

test('account routes: a query string is ignored, another method gets 405 with Allow', async () => {
  const s = await seed(f.accounts);
  const personal = await f.accounts.keys.createUserKey({ userId: s.userId });
  assert.equal((await fetch(`${f.url}/api/v1/me?verbose=1`, { headers: { 'X-API-Key': personal.key } })).status, 200);
  assert.equal((await fetch(`${f.url}/api/v1/projects/`, { headers: { 'X-API-Key': personal.key } })).status, 200);
  for (const [method, path, allow] of [
    ['PUT', '/api/v1/me', 'GET'],
    ['POST', '/api/v1/projects', 'GET'],
    ['GET', '/api/v1/me/key', 'DELETE'],
  ] as const) {
    const res = await fetch(`${f.url}${path}`, { method, headers: { 'X-API-Key': personal.key } });
    assert.equal(res.status, 405, `${method} ${path}`);
    assert.equal(res.headers.get('allow'), `${allow}, OPTIONS`);
    assert.equal((await res.json()).error.message, '405 Method Not Allowed');
  }
  // The key still works: nothing above revoked it.
  assert.equal((await fetch(`${f.url}/api/v1/me`, { headers: { 'X-API-Key': personal.key } })).status, 200);
});

test('the protected resource metadata (RFC 9728) for a project endpoint', async () => {
  const res = await fetch(`${f.url}/.well-known/oauth-protected-resource/mcp/some-project`);
  assert.equal(res.status, 200);
  const doc = await res.json();
  assert.equal(doc.resource, `${f.url}/mcp/some-project`);
  assert.deepEqual(doc.authorization_servers, [f.config.authUrl]);
  assert.deepEqual(doc.bearer_methods_supported, ['header']);
  assert.equal(res.headers.get('access-control-allow-origin'), '*');
  assert.equal(
    (await fetch(`${f.url}/.well-known/oauth-protected-resource`)).status,
    404,
    'no root document: it would name the wrong audience',
  );
  assert.equal((await fetch(`${f.url}/.well-known/oauth-authorization-server`)).status, 404, 'AS metadata lives on the auth host');
});
