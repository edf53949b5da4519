/**
 * Test fixture of the auth-service tests: a private redis-server, the auth-service on a free
 * port (issuer = its own URL), the account stores, and small HTTP helpers.
 */
import type { Accounts, Redis, User } from '@svc/accounts';
import { connectRedis, createAccounts } from '@svc/accounts';
import type { Config } from '@svc/config';
import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import type { RedisFixture } from '@svc/testkit';
import { freePort, startRedis } from '@svc/testkit';
import type { Client } from 'oidc-provider';
import type { ThrottleLimits } from '../src/http/throttle.ts';
import { startAuthService, type RunningAuthService } from '../src/server.ts';

export interface AuthFixture {
  url: string;
  config: Config;
  redis: RedisFixture;
  client: Redis;
  accounts: Accounts;
  service: RunningAuthService;
  close(): Promise<void>;
}

export async function startAuth(
  options: { limits?: Partial<ThrottleLimits>; env?: Record<string, string>; now?: () => number } = {},
): Promise<AuthFixture> {
  const redis = await startRedis();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    NODE_ENV: 'test',
    REDIS_URL: redis.url,
    AUTH_URL: url,
    BASE_URL: 'http://127.0.0.1:3999',
    LOG_LEVEL: 'error',
    ...options.env,
  });
  const logger = createLogger({ service: 'auth-test', level: 'error', silent: !process.env['SVC_TEST_LOGS'] });
  const service = await startAuthService({
    config: { ...config, port },
    logger,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  const client = connectRedis(redis.url, { name: 'auth-test' });
  const accounts = createAccounts(client, { pepper: config.keyPepper, bcryptCost: 4 });
  return {
    url,
    config,
    redis,
    client,
    accounts,
    service,
    async close() {
      await service.close();
      client.disconnect();
      await redis.stop();
    },
  };
}

export async function postJson(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: res.headers };
}

export async function postForm(
  url: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** The password of the people tests create. */
export const TEST_PASSWORD = 'correct horse battery staple';

/** A new person and a new project of their workspace (`prefix` names both), with the project's MCP resource URL. */
export async function newProject(f: AuthFixture, prefix: string): Promise<{ user: User; slug: string; resource: string }> {
  const tag = Math.random().toString(36).slice(2, 8);
  const user = await f.accounts.users.create({ emailVerified: true, email: `${prefix}-${tag}@example.com`, password: TEST_PASSWORD });
  const slug = `${prefix}-${tag}`;
  await f.accounts.workspaces.createProject({ slug, workspace: user.workspace });
  return { user, slug, resource: `${f.config.baseUrl}/mcp/${slug}` };
}

/** A Grant saved through the provider's models: a new person gave `clientId` `mcp` on their new project (`prefix` names both). */
export async function mintGrant(
  f: AuthFixture,
  prefix: string,
  clientId = 'svc-mcp',
): Promise<{ accountId: string; grantId: string; resource: string; client: Client }> {
  const { user, resource } = await newProject(f, prefix);
  const p = f.service.provider;
  const grant = new p.Grant({ accountId: user.id, clientId });
  grant.addResourceScope(resource, 'mcp');
  const grantId = await grant.save();
  const client = await p.Client.find(clientId);
  if (!client) throw new Error(`${clientId} is a known client`);
  return { accountId: user.id, grantId, resource, client };
}

/** A refresh token of svc-mcp for a new person's new project (`prefix` names both), minted through the provider's models. */
export async function mintRefreshToken(f: AuthFixture, prefix: string): Promise<{ token: string; grantId: string; resource: string }> {
  const { accountId, grantId, resource, client } = await mintGrant(f, prefix);
  const rt = new f.service.provider.RefreshToken({ client, accountId, grantId, gty: DEVICE_GRANT, scope: 'mcp', resource });
  return { token: await rt.save(), grantId, resource };
}

/** A signed-in browser as the dashboard tests drive it: its cookies and the CSRF token its pages carry. */
export interface SignedIn {
  cookie: string;
  csrf: string;
}

/** The cookies a response sets, as a Cookie header sends them back. */
export const cookiePairs = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');

/**
 * Signs `email` in with its password through the sign-in page, then opens `page` (a dashboard page),
 * when one is given, for the CSRF token of its forms and the cookie it is bound to. The one copy the
 * auth-service tests share.
 */
export async function signedIn(f: AuthFixture, email: string, options: { page?: string; password?: string } = {}): Promise<SignedIn> {
  const password = options.password ?? TEST_PASSWORD;
  const form = await fetch(`${f.url}/signin`);
  const first = cookiePairs(form);
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const res = await fetch(`${f.url}/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: first },
    body: new URLSearchParams({ csrf, email, password, return: '/' }),
    redirect: 'manual',
  });
  if (res.status !== 303) throw new Error(`sign-in of ${email} answered ${res.status}`);
  const cookie = `${first}; ${cookiePairs(res)}`;
  if (!options.page) return { cookie, csrf: '' };
  const opened = await fetch(`${f.url}${options.page}`, { headers: { cookie }, redirect: 'manual' });
  const token = /name="csrf" value="([^"]+)"/.exec(await opened.text())?.[1] ?? '';
  const bound = cookiePairs(opened);
  return { cookie: bound ? `${cookie}; ${bound}` : cookie, csrf: token };
}
