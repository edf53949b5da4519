/**
 * The official MCP TypeScript SDK client (Streamable HTTP transport) against the gateway: it
 * connects with an API key header, lists tools and calls them, and sees the errors of
 * docs/contract.md "Errors".
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectRedis, createAccounts, type Accounts } from '@svc/accounts';
import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { startGateway, type RunningGateway } from '@svc/mcp-gateway/server.ts';
import { freePort, startRedis, type RedisFixture } from '@svc/testkit';

let redis: RedisFixture;
let gw: RunningGateway;
let accounts: Accounts;
let base: string;
let client: ReturnType<typeof connectRedis>;

before(async () => {
  redis = await startRedis();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const config = loadConfig({ NODE_ENV: 'test', REDIS_URL: redis.url, BASE_URL: base, AUTH_URL: 'http://127.0.0.1:1' });
  gw = await startGateway({ config, logger: createLogger({ service: 'gw', silent: true }) });
  client = connectRedis(redis.url);
  accounts = createAccounts(client, { pepper: config.keyPepper, bcryptCost: 4 });
});
after(async () => {
  await gw.close();
  client.disconnect();
  await redis.stop();
});

async function project(level: 'VIEWER' | 'EDITOR' | 'ADMIN' = 'VIEWER') {
  const user = await accounts.users.create({
    emailVerified: true,
    email: `sdk-${Math.random().toString(36).slice(2)}@example.com`,
    password: 'correct horse battery',
  });
  const slug = `sdk-${Math.random().toString(36).slice(2, 10)}`;
  await accounts.workspaces.createProject({ slug, workspace: user.workspace });
  const key = await accounts.keys.createProjectKey({ project: slug, workspace: user.workspace, level, name: 'sdk' });
  return { slug, key: key.key };
}

async function connect(slug: string, headers: Record<string, string>) {
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp/${slug}`), { requestInit: { headers } });
  await client.connect(transport);
  return client;
}

test('the SDK client connects with X-API-Key, lists and calls tools', async () => {
  const p = await project();
  const client = await connect(p.slug, { 'X-API-Key': p.key });
  try {
    assert.equal(client.getServerVersion()?.name, 'svc');
    assert.ok(client.getServerCapabilities()?.tools);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    assert.ok(names.includes('svc_help') && names.includes('svc_request_access'));
    for (const t of tools) assert.equal(t.inputSchema.type, 'object');
    const help = await client.callTool({ name: 'svc_help', arguments: {} });
    const content = help.content as { type: string; text: string }[];
    assert.match(content[0]!.text, /Tools you can call/);
    const bad = await client.callTool({ name: 'svc_request_access', arguments: { requested_level: 'EDITOR' } });
    assert.equal(bad.isError, true);
    await client.ping();
  } finally {
    await client.close();
  }
});

test('the SDK client with a key sent as a bearer token', async () => {
  const p = await project();
  const client = await connect(p.slug, { Authorization: `Bearer ${p.key}` });
  try {
    const res = await client.callTool({
      name: 'svc_request_access',
      arguments: { requested_level: 'EDITOR', reason: 'to upload the runbook' },
    });
    assert.match((res.content as { text: string }[])[0]!.text, /pending/);
    const list = await accounts.accessRequests.list(p.slug);
    assert.equal(list.length, 1);
    assert.equal(list[0]!.requested_level, 'EDITOR');
  } finally {
    await client.close();
  }
});

test('the SDK client sees Invalid API key for a made-up key', async () => {
  const p = await project();
  await assert.rejects(connect(p.slug, { 'X-API-Key': 'svc-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }), /401|Invalid API key|Unauthorized/);
});
