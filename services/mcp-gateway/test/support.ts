/**
 * Gateway test fixture: a private redis-server, the gateway on a free port, the account stores,
 * and helpers to seed accounts and speak JSON-RPC over real HTTP.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Accounts } from '@svc/accounts';
import { connectRedis, createAccounts, oidcRecordKey } from '@svc/accounts';
import { generateCredential } from '@svc/credentials';
import type { Config } from '@svc/config';
import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import type { Plan, KeyLevel } from '@svc/policy';
import type { RedisFixture } from '@svc/testkit';
import { freePort, limiterModeEnv, startRedis, waitFor } from '@svc/testkit';
import { startGateway, type RunningGateway } from '../src/server.ts';
import type { ResolveTxt } from '@svc/sso';

export interface GatewayFixture {
  redis: RedisFixture;
  accounts: Accounts;
  config: Config;
  gw: RunningGateway;
  url: string;
  /** A second gateway on the same Redis (another replica). */
  startReplica(): Promise<RunningGateway>;
  close(): Promise<void>;
}

export function testConfig(redisUrl: string, port: number, env: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    REDIS_URL: redisUrl,
    BASE_URL: `http://127.0.0.1:${port}`,
    AUTH_URL: 'http://127.0.0.1:1',
    LOG_LEVEL: 'error',
    ...limiterModeEnv(),
    ...env,
  });
}

/**
 * `now`: the clock of the gateway and of the fixture's own account stores (key expiry, rate-limit
 * windows), e.g. testClock() of @svc/testkit; the real clock when absent.
 */
/**
 * Waits until the gateway at `url` reaches its Redis (/readyz): it connects in the background
 * (fail-fast, no offline queue), so a request sent the moment it listens could get a 503.
 */
export async function gatewayReady(url: string): Promise<void> {
  await waitFor(async () => (await fetch(`${url}/readyz`)).ok, {
    timeout: 10_000,
    message: `the gateway at ${url} to reach Redis (/readyz)`,
  });
}

export async function startFixture(
  env: Record<string, string> = {},
  options: { now?: () => number; resolveTxt?: ResolveTxt } = {},
): Promise<GatewayFixture> {
  const redis = await startRedis();
  const port = await freePort();
  const config = testConfig(redis.url, port, env);
  const logger = createLogger({ service: 'mcp-gateway', level: 'error', silent: true });
  const now = options.now ? { now: options.now } : {};
  const gw = await startGateway({ config, logger, ...now, ...(options.resolveTxt ? { resolveTxt: options.resolveTxt } : {}) });
  await gatewayReady(gw.url);
  const client = connectRedis(redis.url, { name: 'test-accounts' });
  const accounts = createAccounts(client, { pepper: config.keyPepper, bcryptCost: 4, ...now });
  const replicas: RunningGateway[] = [];
  return {
    redis,
    accounts,
    config,
    gw,
    url: `http://127.0.0.1:${port}`,
    async startReplica() {
      const p = await freePort();
      const r = await startGateway({ config: { ...config, port: p }, logger, ...now });
      await gatewayReady(r.url);
      replicas.push(r);
      return r;
    },
    async close() {
      for (const r of replicas) await r.close();
      await gw.close();
      client.disconnect();
      await redis.stop();
    },
  };
}

let seq = 0;

export interface Seeded {
  userId: string;
  email: string;
  workspace: string;
  project: string;
  key: string;
  keyId: string;
}

/** A user with a workspace on `plan`, a project, and a project key of `level`. */
export async function seed(accounts: Accounts, opts: { plan?: Plan; level?: KeyLevel; agents?: boolean } = {}): Promise<Seeded> {
  const n = ++seq;
  const email = `user${n}-${Date.now()}@example.com`;
  const user = await accounts.users.create({ emailVerified: true, email, password: 'correct horse battery' });
  if (opts.plan || opts.agents !== undefined) await accounts.workspaces.setPlan(user.workspace, opts.plan ?? 'FREE', opts.agents);
  const project = `proj-${n}-${Math.random().toString(36).slice(2, 8)}`;
  await accounts.workspaces.createProject({ slug: project, workspace: user.workspace });
  const k = await accounts.keys.createProjectKey({ project, workspace: user.workspace, level: opts.level ?? 'EDITOR', name: 'test' });
  return { userId: user.id, email, workspace: user.workspace, project, key: k.key, keyId: k.id };
}

export interface RpcResponse {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed response body: its shape is what the assertions check
  body: any;
  text: string;
}

/** POSTs a body (object or raw string) to a path of the gateway. */
export async function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<RpcResponse> {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

export const rpc = (method: string, params?: Record<string, unknown>, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params ? { params } : {}),
});
export const call = (name: string, args: Record<string, unknown> = {}, id: number | string = 1) =>
  rpc('tools/call', { name, arguments: args }, id);

/**
 * An OAuth access token as the auth-service stores it (docs/redis-schema.md), with its Grant, which
 * records the level approved on the consent page as its scope for the project's resource
 * (`grantScope`; null: a Grant that records none). The one copy the gateway tests share.
 */
export async function plantAccessToken(
  f: GatewayFixture,
  t: { accountId: string; scope: string; grantScope: string | null; project: string; clientId?: string },
): Promise<string> {
  const token = generateCredential('access_token');
  const grantId = `grant-${Math.random().toString(36).slice(2)}`;
  const aud = `${f.config.baseUrl}/mcp/${t.project}`;
  const grant = { kind: 'Grant', accountId: t.accountId, ...(t.grantScope === null ? {} : { resources: { [aud]: t.grantScope } }) };
  await f.redis.client.hset(oidcRecordKey('Grant', grantId), 'payload', JSON.stringify(grant));
  const payload = {
    kind: 'AccessToken',
    jti: token,
    exp: Math.floor(Date.now() / 1000) + 3600,
    accountId: t.accountId,
    clientId: t.clientId ?? 'registered-client',
    grantId,
    aud,
    scope: t.scope,
  };
  await f.redis.client.hset(oidcRecordKey('AccessToken', token), 'payload', JSON.stringify(payload));
  return token;
}

/**
 * A small MCP server of the 2025-11-25 revision (plain node:http, JSON answers): `read_notes`
 * (read-only) and `delete_note` (destructive); it records what it received. For the management
 * API's tests of upstream servers; the end-to-end tests use servers built with the official SDKs.
 */
export async function startPlainUpstream(
  tools: Record<string, unknown>[] = [
    { name: 'read_notes', description: 'Lists the notes', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
    { name: 'delete_note', description: 'Deletes a note', inputSchema: { type: 'object', properties: { title: { type: 'string' } } } },
  ],
): Promise<{
  url: string;
  received: { method: string; authorization: string }[];
  close(): Promise<void>;
}> {
  const received: { method: string; authorization: string }[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const message = JSON.parse(text || '{}') as { id?: number; method?: string };
      received.push({ method: message.method ?? '', authorization: req.headers.authorization ?? '' });
      if (message.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const results: Record<string, unknown> = {
        initialize: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'plain', version: '1' } },
        'tools/list': { tools },
        'tools/call': { content: [{ type: 'text', text: 'done' }] },
      };
      const result = results[message.method ?? ''];
      const body = result ? { result } : { error: { code: -32601, message: 'Method not found' } };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...body }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    received,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
