/**
 * The test upstreams of tests/support/upstream-servers.ts behave as they say, driven by the official
 * SDK clients with svc-shaped tokens from a local issuer: the SDK v1 and v2 servers list and call the
 * note tools, verify each request's token with @svc/upstream-auth wired as docs/upstream-servers.md
 * shows (a refused token is 401 invalid_token, a replayed one too), send progress and
 * tools/list_changed; the hostile ones hang, fail, answer garbage and flood as described.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHTTPClientTransportV2 } from '@modelcontextprotocol/client';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import type { CryptoKey, JWK } from 'jose';
import { waitFor } from '@svc/testkit';
import {
  noteTools,
  startChangingUpstream,
  startFailingUpstream,
  startFloodingUpstream,
  startGarbageUpstream,
  startHangingUpstream,
  startSdkV1Upstream,
  startSdkV2Upstream,
} from '../support/upstream-servers.ts';
import type { TestUpstream } from '../support/upstream-servers.ts';

let issuer = '';
let privateKey: CryptoKey;
let publicJwk: JWK;
const jwks = createServer((_req, res) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [publicJwk] })),
);
before(async () => {
  const pair = await generateKeyPair('ES256');
  privateKey = pair.privateKey;
  publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' };
  jwks.listen(0, '127.0.0.1');
  await once(jwks, 'listening');
  issuer = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}`;
});
after(() => {
  jwks.closeAllConnections();
  jwks.close();
});

/** A token of the profile for `audience`, as the gateway mints one per forwarded request. */
async function mint(audience: string, tool?: string): Promise<string> {
  const svc = { project: 'notes', workspace: 'acme', level: 'EDITOR', upstream: 'notes-server', ...(tool ? { tool } : {}) };
  const claims = { sub: 'user:u1', client_id: 'svc-key:k1', scope: 'svc:editor', svc, jti: crypto.randomUUID() };
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' })
    .setIssuer(issuer)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime('60s')
    .sign(privateKey);
}

/** A fetch that puts a fresh token on every request, naming the tool a tools/call calls. */
function tokenFetch(audience: string): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string; params?: { name?: string } }) : {};
    headers.set('authorization', `Bearer ${await mint(audience, body.method === 'tools/call' ? body.params?.name : undefined)}`);
    return fetch(input, { ...init, headers });
  };
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};
const CALL = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'read_notes', arguments: {} } };
const post = (url: string, body: unknown, init: RequestInit = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...init.headers },
    body: JSON.stringify(body),
    signal: init.signal ?? null,
  });

async function withUpstream<T extends TestUpstream>(upstream: T, run: (u: T) => Promise<void>) {
  try {
    await run(upstream);
  } finally {
    await upstream.close();
  }
}

for (const [label, options] of [
  ['stateless, JSON answers', { json: true }],
  ['with sessions, SSE answers', { sessions: true }],
] as const) {
  test(`SDK v1 upstream, ${label}: lists and calls tools, each request's token verified and recorded`, async () => {
    await withUpstream(await startSdkV1Upstream({ ...options, verify: { issuer } }), async (upstream) => {
      const client = new Client({ name: 't', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(upstream.url), { fetch: tokenFetch(upstream.url) }));
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['read_notes', 'write_note', 'delete_note', 'count_with_progress'],
      );
      assert.equal(tools[0]?.annotations?.readOnlyHint, true);
      assert.equal(tools[2]?.annotations?.destructiveHint, true);
      await client.callTool({ name: 'write_note', arguments: { title: 'a', text: 'b' } });
      const read = await client.callTool({ name: 'read_notes', arguments: {} });
      assert.deepEqual(read.structuredContent, { notes: { a: 'b' } });
      const call = upstream.calls.find((c) => c.tool === 'write_note');
      assert.equal(call?.authInfo?.extra?.tool, 'write_note');
      assert.equal(call?.authInfo?.extra?.subject, 'user:u1');
      assert.match(call?.authorization ?? '', /^Bearer ey/);
      await client.close();

      const other = await post(upstream.url, INITIALIZE, { headers: { authorization: `Bearer ${await mint('http://127.0.0.1:1/mcp')}` } });
      assert.equal(other.status, 401);
      assert.match(other.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
      assert.equal(upstream.calls.at(-1)?.refusal, 'The token was issued for another server');
      const once = `Bearer ${await mint(upstream.url)}`;
      assert.equal((await post(upstream.url, INITIALIZE, { headers: { authorization: once } })).status, 200);
      assert.equal((await post(upstream.url, INITIALIZE, { headers: { authorization: once } })).status, 401, 'a replayed token');
    });
  });
}

test('SDK v1 upstream with sessions: progress notifications when asked, tools/list_changed on setTools', async () => {
  await withUpstream(await startSdkV1Upstream({ sessions: true }), async (upstream) => {
    const client = new Client({ name: 't', version: '1' });
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changed += 1));
    await client.connect(new StreamableHTTPClientTransport(new URL(upstream.url)));
    const progress: number[] = [];
    await client.callTool({ name: 'count_with_progress', arguments: { steps: 3 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    assert.deepEqual(progress, [1, 2, 3]);
    await waitFor(() => upstream.calls.some((c) => c.httpMethod === 'GET'), 'the client opens its GET stream');
    upstream.setTools([]);
    await waitFor(() => changed === 1, 'notifications/tools/list_changed arrives');
    assert.deepEqual((await client.listTools()).tools, []);
    upstream.setTools(noteTools().filter((t) => t.annotations?.readOnlyHint));
    await waitFor(() => changed === 2, 'and again');
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['read_notes'],
    );
    await client.close();
  });
});

test('SDK v2 upstream: the 2026-07-28 revision and initialize, tokens verified with the v2 bearer gate', async () => {
  await withUpstream(await startSdkV2Upstream({ verify: { issuer } }), async (upstream) => {
    for (const mode of ['auto', 'legacy'] as const) {
      const client = new ClientV2({ name: 't', version: '1' }, { versionNegotiation: { mode } });
      await client.connect(new StreamableHTTPClientTransportV2(new URL(upstream.url), { fetch: tokenFetch(upstream.url) }));
      const { tools } = await client.listTools();
      assert.equal(tools.find((t) => t.name === 'delete_note')?.annotations?.destructiveHint, true);
      const progress: number[] = [];
      const result = await client.callTool(
        { name: 'count_with_progress', arguments: { steps: 2 } },
        { onprogress: (p: { progress: number }) => progress.push(p.progress) },
      );
      assert.deepEqual(result.content, [{ type: 'text', text: 'counted 2' }]);
      assert.deepEqual(progress, [1, 2], mode);
      await client.close();
    }
    assert.ok(
      upstream.calls.some((c) => c.rpcMethod === 'server/discover'),
      'the modern revision was spoken',
    );
    assert.ok(
      upstream.calls.some((c) => c.rpcMethod === 'initialize'),
      'the earlier one too',
    );
    assert.equal(upstream.calls.find((c) => c.tool === 'count_with_progress')?.authInfo?.extra?.tool, 'count_with_progress');
    const refused = await post(upstream.url, INITIALIZE, { headers: { authorization: 'Bearer not-a-token' } });
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  });
});

test('hostile upstreams: hang, 500, garbage, a flood of notifications; initialize is answered first', async () => {
  await withUpstream(await startHangingUpstream(), async (upstream) => {
    assert.equal((await post(upstream.url, INITIALIZE)).status, 200);
    await assert.rejects(post(upstream.url, CALL, { signal: AbortSignal.timeout(200) }), { name: 'TimeoutError' });
    assert.equal(upstream.calls.at(-1)?.tool, 'read_notes');
  });
  await withUpstream(await startFailingUpstream(), async (upstream) => {
    assert.equal((await post(upstream.url, CALL)).status, 500);
  });
  await withUpstream(await startGarbageUpstream({ misbehaveOn: 'everything' }), async (upstream) => {
    const answer = await post(upstream.url, INITIALIZE);
    assert.equal(answer.headers.get('content-type'), 'application/json');
    await assert.rejects(answer.json());
  });
  await withUpstream(await startFloodingUpstream({ events: 5000 }), async (upstream) => {
    const answer = await post(upstream.url, CALL);
    assert.equal(answer.headers.get('content-type'), 'text/event-stream');
    const reader = answer.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while ((text.match(/notifications\/progress/g)?.length ?? 0) < 5000) text += (await reader.read()).value ?? '';
    assert.doesNotMatch(text, /"result"/);
    await reader.cancel();
  });
});

test('a changing upstream sends tools/list_changed on its open GET streams', async () => {
  await withUpstream(await startChangingUpstream(), async (upstream) => {
    const stream = await fetch(upstream.url, { headers: { accept: 'text/event-stream' } });
    await waitFor(() => upstream.openStreams() === 1, 'the GET stream is open');
    upstream.setTools([]);
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    assert.match((await reader.read()).value ?? '', /notifications\/tools\/list_changed/);
    await reader.cancel();
    const list = await post(upstream.url, { jsonrpc: '2.0', id: 3, method: 'tools/list' });
    assert.deepEqual(await list.json(), { jsonrpc: '2.0', id: 3, result: { tools: [] } });
  });
});
