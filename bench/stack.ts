/**
 * What every benchmark starts from: a private redis-server, the gateway's environment (limits
 * scaled out of the way but still counted, a long cache backstop), the account stores, and an
 * ENTERPRISE workspace with one project.
 */
import { connectRedis, createAccounts } from '@svc/accounts';
import { loadConfig } from '@svc/config';
import { freePort, startRedis } from '@svc/testkit';

export async function benchStack(project: string) {
  const redis = await startRedis();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    NODE_ENV: 'test',
    REDIS_URL: redis.url,
    BASE_URL: base,
    AUTH_URL: 'http://127.0.0.1:1',
    RATE_LIMIT_SCALE: '1000000',
    LOG_LEVEL: 'warn',
    AUTH_CACHE_TTL_MS: '60000',
  };
  const config = loadConfig(env);
  const client = connectRedis(redis.url);
  const accounts = createAccounts(client, { pepper: config.keyPepper, bcryptCost: 4 });
  const user = await accounts.users.create({ email: `${project}@example.com` });
  await accounts.workspaces.setPlan(user.workspace, 'ENTERPRISE');
  await accounts.workspaces.createProject({ slug: project, workspace: user.workspace });
  return { redis, base, env, config, client, accounts, workspace: user.workspace };
}
