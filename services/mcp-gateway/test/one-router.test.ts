/**
 * Every answer of the gateway comes from a route of its one router and every refusal from the one
 * error writer of its protocol (docs/gateway-pipeline.md "One router", docs/errors.md): the 404 of
 * a path no route takes, the 405s, health and the public documents carry a request id and the
 * same headers as the hot path's answers.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startFixture, type GatewayFixture } from './support.ts';

let f: GatewayFixture;
before(async () => {
  f = await startFixture();
});
after(() => f.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function call(method: string, path: string) {
  const res = await fetch(`${f.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    ...(method === 'GET' || method === 'HEAD' ? {} : { body: '{}' }),
  });
  return { res, text: await res.text() };
}

test('refusals off the hot path: the protocol body, Allow on a 405, a request id, never stored', async () => {
  const cases: [string, string, number, string, string | null][] = [
    ['GET', '/nope', 404, 'not_found', null],
    ['OPTIONS', '/healthz', 404, 'not_found', null],
    ['PATCH', '/api/v1/projects/p/keys/%E0', 404, 'not_found', null],
    ['DELETE', '/api/v1/me', 405, 'method_not_allowed', 'GET, OPTIONS'],
    ['PUT', '/api/v1/projects/p/keys', 405, 'method_not_allowed', 'GET, POST, OPTIONS'],
    ['GET', '/api/v1/keys/report-leak', 405, 'method_not_allowed', 'POST, OPTIONS'],
    ['POST', '/api/oauth/token', 405, 'method_not_allowed', ''],
    ['GET', '/.well-known/oauth-protected-resource/mcp/%E0%A4%A', 400, 'invalid_request', null],
    ['GET', '/.well-known/oauth-protected-resource/mcp/Not_A_Slug', 404, 'not_found', null],
  ];
  for (const [method, path, status, code, allow] of cases) {
    const { res, text } = await call(method, path);
    const what = `${method} ${path}`;
    assert.equal(res.status, status, what);
    assert.equal((JSON.parse(text) as { error: { code: string } }).error.code, code, what);
    assert.equal(res.headers.get('allow'), allow, what);
    assert.match(res.headers.get('x-request-id') ?? '', UUID, `${what}: a request id`);
    assert.equal(res.headers.get('content-type'), 'application/json', what);
    assert.equal(res.headers.get('cache-control'), 'no-store', what);
  }
  const { res, text } = await call('GET', '/mcp/demo');
  assert.equal(res.status, 405);
  assert.equal(res.headers.get('allow'), 'POST, OPTIONS');
  assert.match(res.headers.get('x-request-id') ?? '', UUID);
  const rpc = JSON.parse(text) as { jsonrpc: string; id: unknown; error: { data: { code: string } } };
  assert.deepEqual([rpc.jsonrpc, rpc.id, rpc.error.data.code], ['2.0', null, 'method_not_allowed'], 'a JSON-RPC body on the MCP path');
});

test('health, metadata and the OpenAPI document answer through routes too; GET routes answer HEAD', async () => {
  for (const path of ['/healthz', '/readyz', '/metrics', '/api/v1/openapi.json', '/.well-known/oauth-protected-resource/mcp/demo']) {
    const { res } = await call('GET', path);
    assert.equal(res.status, 200, path);
    assert.match(res.headers.get('x-request-id') ?? '', UUID, `${path}: a request id`);
    const head = await call('HEAD', path);
    assert.equal(head.res.status, 200, `HEAD ${path}`);
    assert.equal(head.text, '', `HEAD ${path}: no body`);
  }
  const { res } = await call('GET', '/.well-known/oauth-protected-resource/mcp/demo');
  assert.equal(res.headers.get('cache-control'), 'public, max-age=300', 'the metadata may still be kept');
  assert.equal(res.headers.get('access-control-allow-origin'), '*');
});
