/** Malformed input gets the JSON-RPC or HTTP error that names the problem; never a 500. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call, post, rpc, seed, startFixture, type GatewayFixture, type Seeded } from './support.ts';

let f: GatewayFixture;
let s: Seeded;
before(async () => {
  f = await startFixture({ RATE_LIMIT_SCALE: '100' });
  s = await seed(f.accounts, { plan: 'PRO' });
});
after(() => f.close());

const send = (body: unknown, headers: Record<string, string> = {}) =>
  post(f.url, `/mcp/${s.project}`, body, { 'X-API-Key': s.key, ...headers });

test('invalid JSON: -32700, HTTP 400, id null', async () => {
  const res = await send('{"jsonrpc":"2.0","id":9,"method":');
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, -32700);
  assert.equal(res.body.id, null);
  assert.match(res.body.error.message, /Parse error/);
});

test('a non-object body: -32600', async () => {
  for (const body of ['42', '"text"', 'null', 'true']) {
    const res = await send(body);
    assert.equal(res.status, 400, body);
    assert.equal(res.body.error.code, -32600);
  }
});

test('a batch is refused with a message saying so', async () => {
  const res = await send([rpc('ping', undefined, 1), rpc('ping', undefined, 2)]);
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, -32600);
  assert.match(res.body.error.message, /batch/i);
});

test('a wrong jsonrpc version, a missing method, a wrong id type', async () => {
  let res = await send({ jsonrpc: '1.0', id: 3, method: 'ping' });
  assert.equal(res.body.error.code, -32600);
  assert.equal(res.body.id, 3, 'the id is echoed when it could be read');
  assert.match(res.body.error.message, /jsonrpc must be "2.0"/);
  res = await send({ jsonrpc: '2.0', id: 4 });
  assert.match(res.body.error.message, /method is required/);
  res = await send({ jsonrpc: '2.0', id: { x: 1 }, method: 'ping' });
  assert.equal(res.body.error.code, -32600);
  res = await send({ jsonrpc: '2.0', id: 5, method: 'ping', params: 'x' });
  assert.equal(res.body.error.code, -32600);
});

test('an unknown method: -32601 with HTTP 200', async () => {
  const res = await send(rpc('resources/list', undefined, 6));
  assert.equal(res.status, 200);
  assert.equal(res.body.error.code, -32601);
  assert.equal(res.body.id, 6);
});

test('an unknown tool: -32602', async () => {
  const res = await send(call('svc_nope'));
  assert.equal(res.body.error.code, -32602);
  assert.match(res.body.error.message, /Unknown tool: svc_nope/);
});

test('arguments of the wrong type: an isError result naming the argument', async () => {
  let res = await send(call('svc_request_access', { requested_level: 5, reason: 'x' }));
  assert.equal(res.status, 200);
  assert.equal(res.body.result.isError, true);
  assert.match(res.body.result.content[0].text, /requested_level must be string/);
  res = await send(call('svc_request_access', { requested_level: 'OWNER', reason: 'x' }));
  assert.match(res.body.result.content[0].text, /requested_level must be equal to one of the allowed values/);
  res = await send(rpc('tools/call', { name: 'svc_help', arguments: [1, 2] }));
  assert.equal(res.body.result.isError, true);
  res = await send(call('svc_help', { unexpected: 1 }));
  assert.match(res.body.result.content[0].text, /unknown argument "unexpected"/);
  res = await send(rpc('tools/call', { name: 7 }));
  assert.equal(res.body.error.code, -32602);
});

test('a 1 MiB body: 413 naming the limit, the connection survives for others', async () => {
  const big = JSON.stringify(call('svc_help', { pad: 'x'.repeat(1024 * 1024) }));
  const res = await send(big);
  assert.equal(res.status, 413);
  assert.equal(res.body.error.data.code, 'payload_too_large');
  assert.match(res.body.error.message, /limit is \d+ bytes/);
  assert.equal((await send(rpc('ping'))).status, 200);
});

test('wrong content type 415, unacceptable Accept 406, bad protocol version 400, foreign Origin 403', async () => {
  let res = await post(f.url, `/mcp/${s.project}`, 'x=1', { 'X-API-Key': s.key, 'Content-Type': 'application/x-www-form-urlencoded' });
  assert.equal(res.status, 415);
  res = await send(rpc('ping'), { Accept: 'text/html' });
  assert.equal(res.status, 406);
  res = await send(rpc('ping'), { 'Content-Encoding': 'gzip' });
  assert.equal(res.status, 415);
  assert.match(res.body.error.message, /Content-Encoding gzip is not accepted/);
  res = await send(rpc('ping'), { 'MCP-Protocol-Version': '1999-01-01' });
  assert.equal(res.status, 400);
  assert.match(res.body.error.message, /Unsupported protocol version/);
  assert.equal(res.body.error.code, -32022);
  assert.ok(res.body.error.data.supported.includes('2026-07-28'));
  res = await send(rpc('ping'), { 'MCP-Protocol-Version': '2025-06-18' });
  assert.equal(res.status, 200);
  res = await send(rpc('ping'), { Origin: 'https://evil.example' });
  assert.equal(res.status, 403);
  res = await send(rpc('ping'), { Origin: 'http://localhost:6274' });
  assert.equal(res.status, 200, 'loopback origins are allowed outside production');
  assert.equal(res.headers.get('access-control-allow-origin'), 'http://localhost:6274');
  assert.match(res.headers.get('access-control-expose-headers') ?? '', /WWW-Authenticate/);
});

test('an unknown surface header is a clear 400', async () => {
  const res = await send(rpc('ping'), { 'X-Svc-Surface': 'desktop' });
  assert.equal(res.status, 400);
  assert.match(res.body.error.message, /X-Svc-Surface/);
});

test('notifications get 202 with no body', async () => {
  const res = await send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  assert.equal(res.status, 202);
  assert.equal(res.text, '');
});

test('GET and DELETE on the MCP endpoint: 405; device-flow POSTs to this host: 405 naming the auth host', async () => {
  for (const method of ['GET', 'DELETE']) {
    const res = await fetch(`${f.url}/mcp/${s.project}`, { method, headers: { 'X-API-Key': s.key } });
    assert.equal(res.status, 405);
    assert.match(res.headers.get('allow') ?? '', /POST/);
  }
  const res = await post(f.url, '/api/oauth/device/code', { client_id: 'svc-cli' });
  assert.equal(res.status, 405);
  assert.equal(res.body.error.message, '405 Method Not Allowed');
  assert.match(res.body.error.remedy, new RegExp(f.config.authUrl.replace(/[.:/]/g, '\\$&')));
});

test('unknown paths: a JSON 404; preflight: CORS headers', async () => {
  const res = await fetch(`${f.url}/nope`);
  assert.equal(res.status, 404);
  assert.equal((await res.json()).error.code, 'not_found');
  const pre = await fetch(`${f.url}/mcp/${s.project}`, {
    method: 'OPTIONS',
    headers: {
      Origin: 'http://localhost:6274',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'content-type,mcp-protocol-version,mcp-method,mcp-name,mcp-param-region,x-evil',
    },
  });
  assert.equal(pre.status, 204);
  const allowed = (pre.headers.get('access-control-allow-headers') ?? '').split(/,\s*/);
  for (const h of ['authorization', 'x-api-key', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'mcp-param-region'])
    assert.ok(allowed.includes(h), `preflight allows ${h}: ${allowed.join(', ')}`);
  assert.ok(!allowed.includes('x-evil'), 'only headers the gateway reads are allowed');
});

test('health, readiness and metrics', async () => {
  assert.equal((await fetch(`${f.url}/healthz`)).status, 200);
  assert.equal((await fetch(`${f.url}/readyz`)).status, 200);
  const m = await (await fetch(`${f.url}/metrics`)).text();
  assert.match(m, /svc_gateway_requests_total/);
  assert.match(m, /svc_gateway_tool_calls_total/);
});

test('metrics count every request once, however often they are read', async () => {
  const read = async () => {
    const text = await (await fetch(`${f.url}/metrics`)).text();
    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
    return {
      ok: value(/^svc_gateway_requests_total\{route="mcp",status="200"\} (\d+)$/m),
      help: value(/^svc_gateway_tool_calls_total\{tool="svc_help",outcome="ok"\} (\d+)$/m),
      hits: value(/^svc_gateway_auth_cache_total\{result="hit"\} (\d+)$/m),
    };
  };
  const before = await read();
  for (let i = 0; i < 3; i++) assert.equal((await post(f.url, `/mcp/${s.project}`, call('svc_help'), { 'X-API-Key': s.key })).status, 200);
  const after = await read();
  assert.equal(after.ok - before.ok, 3);
  assert.equal(after.help - before.help, 3);
  assert.ok(after.hits - before.hits >= 2, 'the key was in the cache after its first call');
  assert.deepEqual(await read(), after, 'reading again adds nothing');
});
