/**
 * A stuck Redis (SIGSTOP: the connection stays open, nothing answers) is answered within a second
 * on every request path (docs/operations.md "When Redis stops answering"): 503 with Retry-After and
 * the route's error body, JSON-RPC on MCP routes and the REST body elsewhere. Each path is called
 * once with a warm credential cache (so the stall meets its later steps: the rate limiter, the
 * tool, the management store) and once with a cold one (the credential lookup itself).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connectRedis, oidcRecordKey, REQUEST_STALL_ANSWER_MS, STORE_DOWN_RETRY_AFTER_SECONDS, type Redis } from '@svc/accounts';
import { generateCredential } from '@svc/credentials';
import { waitFor } from '@svc/testkit';
import { call, post, rpc, seed, startFixture, type GatewayFixture, type RpcResponse, type Seeded } from './support.ts';

let f: GatewayFixture;
let store: Redis;
let s: Seeded;
let token: string;

before(async () => {
  f = await startFixture({ RATE_LIMIT_SCALE: '1000' });
  store = connectRedis(f.redis.url, { name: 'stall-test' });
  s = await seed(f.accounts, { level: 'ADMIN' });
  token = generateCredential('access_token');
  const grantId = `grant-${Math.random().toString(36).slice(2)}`;
  // The Grant records the token's project, as every consent does (docs/auth-service.md "What a token is for").
  const resources = { [`${f.config.baseUrl}/mcp/${s.project}`]: 'mcp:write' };
  await store.hset(oidcRecordKey('Grant', grantId), 'payload', JSON.stringify({ kind: 'Grant', accountId: s.userId, resources }));
  const payload = {
    kind: 'AccessToken',
    jti: token,
    exp: Math.floor(Date.now() / 1000) + 3600,
    accountId: s.userId,
    clientId: 'registered-client',
    grantId,
    aud: `${f.config.baseUrl}/mcp/${s.project}`,
    scope: 'mcp:write',
  };
  await store.hset(oidcRecordKey('AccessToken', token), 'payload', JSON.stringify(payload));
});
after(async () => {
  store.disconnect();
  await f.close();
});

interface PathCase {
  name: string;
  protocol: 'jsonrpc' | 'rest';
  send(): Promise<RpcResponse>;
}

const key = () => ({ 'X-API-Key': s.key });
const get = async (path: string, headers: Record<string, string>): Promise<RpcResponse> => {
  const res = await fetch(f.url + path, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: JSON.parse(text) as unknown, text };
};

const PATHS: PathCase[] = [
  {
    name: 'MCP tools/call (API key)',
    protocol: 'jsonrpc',
    send: () => post(f.url, `/mcp/${s.project}`, call('svc_search', { query: 'x' }), key()),
  },
  {
    name: 'MCP tools/call (OAuth token)',
    protocol: 'jsonrpc',
    send: () => post(f.url, `/mcp/${s.project}`, call('svc_search', { query: 'x' }), { Authorization: `Bearer ${token}` }),
  },
  { name: 'MCP tools/list', protocol: 'jsonrpc', send: () => post(f.url, `/mcp/${s.project}`, rpc('tools/list'), key()) },
  {
    name: 'REST tool route',
    protocol: 'rest',
    send: () => post(f.url, `/api/v1/projects/${s.project}/tools/svc_search`, { query: 'x' }, key()),
  },
  { name: 'REST management route', protocol: 'rest', send: () => get(`/api/v1/projects/${s.project}/keys`, key()) },
  { name: 'REST account route', protocol: 'rest', send: () => get('/api/v1/me', key()) },
];

async function ready(): Promise<void> {
  await waitFor(async () => (await fetch(`${f.url}/readyz`)).status === 200, {
    timeout: 5_000,
    interval: 20,
    message: 'the gateway ready again',
  });
}

/** Pauses Redis, sends one request, resumes: the answer and its wall time. */
async function whilePaused(send: () => Promise<RpcResponse>): Promise<{ res: RpcResponse; ms: number }> {
  f.redis.pause();
  try {
    const started = performance.now();
    const res = await send();
    return { res, ms: performance.now() - started };
  } finally {
    f.redis.resume();
  }
}

function assertStoreDown(p: PathCase, res: RpcResponse, ms: number, when: string): void {
  const what = `${p.name} (${when})`;
  assert.equal(res.status, 503, `${what}: ${res.status} ${res.text}`);
  assert.equal(res.headers.get('retry-after'), String(STORE_DOWN_RETRY_AFTER_SECONDS), what);
  if (p.protocol === 'jsonrpc') {
    assert.equal(res.body.jsonrpc, '2.0', what);
    assert.equal(res.body.error.data.code, 'service_unavailable', what);
  } else assert.equal(res.body.error.code, 'service_unavailable', what);
  assert.ok(ms < REQUEST_STALL_ANSWER_MS, `${what} took ${Math.round(ms)} ms`);
}

for (const p of PATHS) {
  test(`Redis stuck: ${p.name} answers 503 with Retry-After within ${REQUEST_STALL_ANSWER_MS} ms`, async (t) => {
    await ready();
    // Warm: the credential is cached, so the stall meets the steps after authentication.
    const warm = await p.send();
    assert.equal(warm.status, 200, `${p.name} before the stall: ${warm.text}`);
    const cached = await whilePaused(p.send);
    t.diagnostic(`credential cached: ${cached.res.status} in ${Math.round(cached.ms)} ms`);
    assertStoreDown(p, cached.res, cached.ms, 'credential cached');
    await ready();
    // Cold: a credential the gateway has not seen goes to Redis first.
    f.gw.gateway.cache.clear();
    const cold = await whilePaused(p.send);
    t.diagnostic(`credential not cached: ${cold.res.status} in ${Math.round(cold.ms)} ms`);
    assertStoreDown(p, cold.res, cold.ms, 'credential not cached');
    await ready();
    assert.equal((await p.send()).status, 200, `${p.name} after Redis resumed`);
  });
}
