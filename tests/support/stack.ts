/**
 * The whole stack for cross-service tests: a private redis-server, the auth-service and the
 * gateway on free ports (in this process), and the account stores to seed them.
 */
import type { Accounts, Redis } from '@svc/accounts';
import { connectRedis, createAccounts } from '@svc/accounts';
import { startAuthService, type StartAuthServiceOptions } from '@svc/auth-service/server.ts';
import type { Config } from '@svc/config';
import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { startGateway } from '@svc/mcp-gateway/server.ts';
import type { Plan } from '@svc/policy';
import type { RedisFixture } from '@svc/testkit';
import { freePort, limiterModeEnv, startRedis, waitFor } from '@svc/testkit';

export interface Stack {
  authUrl: string;
  baseUrl: string;
  config: Config;
  redis: RedisFixture;
  /** A client for the test's own checks. */
  client: Redis;
  accounts: Accounts;
  /** Sends the spans both services have ended so far (when tracing is on; docs/operations.md "Traces"). */
  flushTraces(): Promise<void>;
  close(): Promise<void>;
}

export interface StackOptions {
  /** The auth-service's outgoing fetch (Client ID Metadata Documents), see StartAuthServiceOptions. */
  authFetch?: StartAuthServiceOptions['fetch'];
  /** The auth-service's brute-force limits (the fuzz suite raises them), see StartAuthServiceOptions. */
  authLimits?: StartAuthServiceOptions['limits'];
  /** The auth-service's clock for the refresh replay window, see StartAuthServiceOptions. */
  authNow?: StartAuthServiceOptions['now'];
  /** The auth-service's DNS TXT lookups (SSO domain proofs), see StartAuthServiceOptions. */
  authResolveTxt?: StartAuthServiceOptions['resolveTxt'];
  /** The auth URL's host (`localhost` for WebAuthn: browsers refuse an IP address as RP ID). */
  authHost?: string;
}

export async function startStack(env: Record<string, string> = {}, options: StackOptions = {}): Promise<Stack> {
  // freePort() releases the port it found before a service listens on it, so under parallel test
  // files another socket may take it first: such a start is tried again on new ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(env, options);
    } catch (err) {
      if (attempt >= 3 || (err as { code?: unknown }).code !== 'EADDRINUSE') throw err;
    }
  }
}

/**
 * One start. What is started is stopped again when a later step throws: a redis-server or a
 * listener left running would hold the test file's process open after its before hook failed.
 */
async function startOnce(env: Record<string, string>, options: StackOptions): Promise<Stack> {
  const started: (() => unknown)[] = [];
  try {
    return await startParts(env, options, started);
  } catch (err) {
    for (const stop of started.reverse()) await Promise.resolve(stop()).catch(() => undefined);
    throw err;
  }
}

async function startParts(env: Record<string, string>, options: StackOptions, started: (() => unknown)[]): Promise<Stack> {
  const redis = await startRedis();
  started.push(() => redis.stop());
  const [authPort, gwPort] = [await freePort(), await freePort()];
  const authUrl = `http://${options.authHost ?? '127.0.0.1'}:${authPort}`;
  const baseUrl = `http://127.0.0.1:${gwPort}`;
  const config = loadConfig({
    NODE_ENV: 'test',
    REDIS_URL: redis.url,
    AUTH_URL: authUrl,
    BASE_URL: baseUrl,
    LOG_LEVEL: 'error',
    ...limiterModeEnv(),
    ...env,
  });
  const logger = createLogger({ service: 'stack', level: 'error', silent: !process.env['SVC_TEST_LOGS'] });
  const auth = await startAuthService({
    config: { ...config, port: authPort },
    logger,
    ...(options.authFetch ? { fetch: options.authFetch } : {}),
    ...(options.authLimits ? { limits: options.authLimits } : {}),
    ...(options.authNow ? { now: options.authNow } : {}),
    ...(options.authResolveTxt ? { resolveTxt: options.authResolveTxt } : {}),
  });
  started.push(() => auth.close());
  const gw = await startGateway({ config: { ...config, port: gwPort }, logger });
  started.push(() => gw.close());
  // The gateway connects to Redis in the background (fail-fast): a first request must not race it.
  await waitFor(async () => (await fetch(`${baseUrl}/readyz`)).ok, { timeout: 10_000, message: 'the gateway to reach Redis (/readyz)' });
  const client = connectRedis(redis.url, { name: 'stack-test' });
  const accounts = createAccounts(client, { pepper: config.keyPepper, bcryptCost: 4 });
  return {
    authUrl,
    baseUrl,
    config,
    redis,
    client,
    accounts,
    async flushTraces() {
      await Promise.all([gw.tracing.flush(), auth.tracing.flush()]);
    },
    async close() {
      await gw.close();
      await auth.close();
      client.disconnect();
      await redis.stop();
    },
  };
}

/** The password every test person signs in with. */
export const PASSWORD = 'correct horse battery staple';

interface PersonOptions {
  /**
   * Their workspace's plan (FREE when not given). A flow that sends one person's requests through
   * one credential faster than FREE admits asks for a plan that fits it: the gateway admits a
   * workspace 30 requests a minute on FREE, one OAuth client of a person half of them
   * (docs/operations.md "Limits for agents").
   */
  plan?: Plan;
}

/** A new person with a workspace (free unless `options.plan`) and one project of their own (ADMIN there). */
export async function newPerson(stack: Stack, prefix: string, options: PersonOptions = {}) {
  const tag = () => Math.random().toString(36).slice(2, 8);
  const email = `${prefix}-${tag()}@example.com`;
  const user = await stack.accounts.users.create({ emailVerified: true, email, password: PASSWORD });
  if (options.plan) await stack.accounts.workspaces.setPlan(user.workspace, options.plan);
  const slug = `${prefix}-${tag()}`;
  await stack.accounts.workspaces.createProject({ slug, workspace: user.workspace });
  return { email, user, slug };
}
