/**
 * The official MCP TypeScript SDK, v2 line (`@modelcontextprotocol/client`), against the gateway in
 * each of its version-negotiation modes: `auto` (probes with server/discover, stays modern on a
 * recognised answer), pinned to 2026-07-28, and `legacy` (initialize). Each lists and calls tools
 * with an API key, in X-API-Key and as a bearer; a recording fetch shows which era was spoken
 * (docs/mcp-revisions.md).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, StreamableHTTPClientTransport, type VersionNegotiationMode } from '@modelcontextprotocol/client';
import { connectRedis, createAccounts, type Accounts } from '@svc/accounts';
import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { startGateway, type RunningGateway } from '@svc/mcp-gateway/server.ts';
import { freePort, startRedis, type RedisFixture } from '@svc/testkit';

let redis: RedisFixture;
let gw: RunningGateway;
let accounts: Accounts;
let base: string;
let store: ReturnType<typeof connectRedis>;
let slug: string;
let key: string;

before(async () => {
  redis = await startRedis();
  base = `http://127.0.0.1:${await freePort()}`;
  const config = loadConfig({ NODE_ENV: 'test', REDIS_URL: redis.url, BASE_URL: base, AUTH_URL: 'http://127.0.0.1:1' });
  gw = await startGateway({ config, logger: createLogger({ service: 'gw', silent: true }) });
  store = connectRedis(redis.url);
  accounts = createAccounts(store, { pepper: config.keyPepper, bcryptCost: 4 });
  const user = await accounts.users.create({ emailVerified: true, email: 'sdk-v2@example.com' });
  await accounts.workspaces.setPlan(user.workspace, 'PRO');
  slug = 'sdk-v2';
  await accounts.workspaces.createProject({ slug, workspace: user.workspace });
  key = (await accounts.keys.createProjectKey({ project: slug, workspace: user.workspace, level: 'VIEWER', name: 'sdk v2' })).key;
});
after(async () => {
  await gw.close();
  store.disconnect();
  await redis.stop();
});

interface Sent {
  method: string;
  version: string | null;
  mcpMethod: string | null;
}

/** A fetch that records what the client sends, then sends it. */
function recordingFetch(sent: Sent[]): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : {};
    if (init?.method === 'POST')
      sent.push({ method: body.method ?? '', version: headers.get('mcp-protocol-version'), mcpMethod: headers.get('mcp-method') });
    return fetch(input, init);
  };
}

const MODES: [string, VersionNegotiationMode][] = [
  ['auto', 'auto'],
  ['pinned 2026-07-28', { pin: '2026-07-28' }],
  ['legacy', 'legacy'],
];

for (const [label, mode] of MODES) {
  for (const via of ['X-API-Key', 'Bearer'] as const) {
    test(`SDK v2, ${label}, key in ${via}: lists and calls tools`, async () => {
      const sent: Sent[] = [];
      const client = new Client({ name: 'svc-test-v2', version: '1.0.0' }, { versionNegotiation: { mode } });
      const headers: Record<string, string> = via === 'X-API-Key' ? { 'X-API-Key': key } : { Authorization: `Bearer ${key}` };
      const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp/${slug}`), {
        requestInit: { headers },
        fetch: recordingFetch(sent),
      });
      try {
        await client.connect(transport);
        const { tools } = await client.listTools();
        const names = tools.map((t) => t.name);
        assert.deepEqual(names, [...names].sort());
        assert.ok(names.includes('svc_search'));
        const r = await client.callTool({ name: 'svc_help', arguments: {} });
        assert.match((r.content as { text: string }[])[0]!.text, /Tools you can call/);
      } finally {
        await client.close();
      }
      const methods = sent.map((s) => s.method);
      if (label === 'legacy') {
        assert.equal(methods[0], 'initialize', 'the 2025 handshake');
      } else {
        assert.ok(!methods.includes('initialize'), `no handshake in the modern era: ${methods.join(', ')}`);
        const modern = sent.filter((s) => s.method !== '');
        for (const s of modern) {
          assert.equal(s.version, '2026-07-28', `${s.method} sent MCP-Protocol-Version 2026-07-28`);
          assert.equal(s.mcpMethod, s.method, `${s.method} mirrored in Mcp-Method`);
        }
        if (label === 'auto') assert.equal(methods[0], 'server/discover', 'auto probes with server/discover and stays modern');
      }
    });
  }
}
