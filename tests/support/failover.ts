/**
 * What the Redis failover tests share (docs/operations.md "Redis Sentinel", "Redis Cluster"): the
 * auth-service and two gateways in this process on one Redis topology, load that calls both
 * gateways with a live and a revoked key while checking every answer, and a writer of account,
 * key, grant and audit records that keeps what Redis acknowledged.
 */
import type { Accounts, Redis } from '@svc/accounts';
import { createAccounts, K, NOT_REPLICATED } from '@svc/accounts';
import { startAuthService, type RunningAuthService } from '@svc/auth-service/server.ts';
import { createRedisAdapter } from '@svc/auth-service/provider/redis-adapter.ts';
import type { Config } from '@svc/config';
import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { startGateway, type RunningGateway } from '@svc/mcp-gateway/server.ts';
import { freePort, GiveUp, testClock, waitFor } from '@svc/testkit';

export interface FailoverStack {
  config: Config;
  authUrl: string;
  gateways: string[];
  accounts: Accounts;
  close(): Promise<void>;
}

/** The auth-service and two gateways on `env`'s Redis; `client` (the test's) backs `accounts`. */
export async function startFailoverStack(env: Record<string, string>, client: Redis): Promise<FailoverStack> {
  const [authPort, ...gwPorts] = [await freePort(), await freePort(), await freePort()];
  const authUrl = `http://127.0.0.1:${authPort}`;
  // Limits scaled up: the load below must meet Redis, not the per-minute limit.
  const config = loadConfig({
    NODE_ENV: 'test',
    AUTH_URL: authUrl,
    BASE_URL: authUrl,
    LOG_LEVEL: 'error',
    RATE_LIMIT_SCALE: '1000',
    ...env,
  });
  const logger = createLogger({ service: 'failover', level: 'error', silent: !process.env['SVC_TEST_LOGS'] });
  const auth: RunningAuthService = await startAuthService({ config: { ...config, port: authPort }, logger });
  const gws: RunningGateway[] = [];
  // The gateways' clock stands still: a per-minute rate-limit window that rolled over during a
  // test would look like a counter the failover lost.
  const { now } = testClock();
  for (const port of gwPorts) {
    const baseUrl = `http://127.0.0.1:${port}`;
    gws.push(await startGateway({ config: { ...config, baseUrl, port }, logger, now }));
  }
  const gateways = gws.map((g) => g.url);
  for (const url of [...gateways, authUrl])
    await waitFor(async () => (await fetch(`${url}/readyz`)).ok, { timeout: 15_000, message: `${url} to reach Redis (/readyz)` });
  const accounts = createAccounts(client, { pepper: config.keyPepper, bcryptCost: 4, waitReplicas: config.redisWaitReplicas });
  return {
    config,
    authUrl,
    gateways,
    accounts,
    async close() {
      for (const g of gws) await g.close();
      await auth.close();
    },
  };
}

export interface Seed {
  workspace: string;
  userId: string;
  slug: string;
  valid: string;
  validId: string;
  revoked: string;
}

/** A person, a project, a live key and a key revoked at once. */
export async function seed(accounts: Accounts): Promise<Seed> {
  const tag = Math.random().toString(36).slice(2, 8);
  const user = await accounts.users.create({ email: `failover-${tag}@example.com`, password: 'correct horse battery staple' });
  const slug = `failover-${tag}`;
  await accounts.workspaces.createProject({ slug, workspace: user.workspace });
  const valid = await accounts.keys.createProjectKey({ project: slug, workspace: user.workspace, name: 'valid' });
  const revoked = await accounts.keys.createProjectKey({ project: slug, workspace: user.workspace, name: 'revoked' });
  await accounts.keys.revoke(revoked.id);
  return { workspace: user.workspace, userId: user.id, slug, valid: valid.key, validId: valid.id, revoked: revoked.key };
}

/** One JSON-RPC call to a gateway with a key. */
export async function callGateway(url: string, slug: string, key: string, method = 'tools/list', params?: object): Promise<Response> {
  return await fetch(`${url}/mcp/${slug}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-API-Key': key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) }),
  });
}

export interface Answer {
  sentAt: number;
  doneAt: number;
  status: number;
  revoked: boolean;
  /** Which gateway answered (its index). */
  gateway: number;
}

export interface Load {
  answers: Answer[];
  /** Answers that break a promise: a 500, a 503 without Retry-After, a 200 for the revoked key. */
  problems: string[];
  stop(): Promise<void>;
}

/** `workers` loops calling the gateways in turn, one call in four with the revoked key. */
export function startLoad(gateways: string[], s: Seed, workers = 4): Load {
  const answers: Answer[] = [];
  const problems: string[] = [];
  let running = true;
  let n = 0;
  const worker = async () => {
    while (running) {
      const i = n++;
      const revoked = i % 4 === 3;
      const gateway = i % gateways.length;
      const sentAt = performance.now();
      let status = 0;
      try {
        const res = await callGateway(gateways[gateway]!, s.slug, revoked ? s.revoked : s.valid);
        status = res.status;
        if (status === 503 && !res.headers.get('retry-after')) problems.push('a 503 without Retry-After');
        await res.arrayBuffer();
      } catch (err) {
        problems.push(`a request failed: ${(err as Error).message}`);
      }
      if (status >= 500 && status !== 503) problems.push(`status ${status}`);
      if (revoked && status === 200) problems.push('a 200 for the revoked key');
      answers.push({ sentAt, doneAt: performance.now(), status, revoked, gateway });
    }
  };
  const all = Array.from({ length: workers }, worker);
  return {
    answers,
    problems,
    async stop() {
      running = false;
      await Promise.all(all);
    },
  };
}

/** Milliseconds from `t0` to the end of the last call after it not answered as before (0: none). */
export function lastFailureAfter(load: Load, t0: number): number {
  const failed = load.answers.filter((a) => a.sentAt > t0 && a.status !== (a.revoked ? 401 : 200));
  return failed.length ? Math.max(...failed.map((a) => a.doneAt)) - t0 : 0;
}

/**
 * Milliseconds from `t0` until every gateway has answered a 200 to a live-key call sent after it
 * (`gateways` is how many the load calls).
 */
export async function recoveredAfter(load: Load, t0: number, gateways: number, timeoutMs = 15_000): Promise<number> {
  const firsts = await waitFor(
    () => {
      const ok = Array.from({ length: gateways }, (_, g) =>
        load.answers.find((a) => a.gateway === g && a.sentAt > t0 && !a.revoked && a.status === 200),
      );
      return ok.every(Boolean) ? (ok as Answer[]) : null;
    },
    { timeout: timeoutMs, interval: 10, message: 'a call with the live key to succeed again on every gateway after the failover' },
  );
  return Math.max(...firsts.map((a) => a.doneAt)) - t0;
}

export interface Written {
  keys: string[];
  users: string[];
  grants: string[];
  audit: number;
  /** Writes that failed (not acknowledged: the caller saw an error). */
  failed: number;
  /** The last such failure's message. */
  lastError: string;
  /** Longest time between two acknowledged writes, in milliseconds. */
  longestGap: number;
}

/**
 * Writes a key, an audit entry, a grant and now and then an account, one after another, until
 * stopped; keeps what was acknowledged. The grant is saved as the auth-service saves it (its
 * oidc-provider adapter, then the person's grant index through the account stores).
 */
export function startWriter(accounts: Accounts, redis: Redis, s: Seed) {
  const written: Written = { keys: [], users: [], grants: [], audit: 0, failed: 0, lastError: '', longestGap: 0 };
  const Grant = createRedisAdapter({ redis, grants: accounts.oauthGrants });
  const grants = new Grant('Grant');
  let running = true;
  let last = performance.now();
  const acked = () => {
    const now = performance.now();
    written.longestGap = Math.max(written.longestGap, now - last);
    last = now;
  };
  const attempt = async (write: () => Promise<void>) => {
    try {
      await write();
      acked();
    } catch (err) {
      written.failed++;
      written.lastError = (err as Error).message;
    }
  };
  const loop = (async () => {
    for (let i = 0; running; i++) {
      await attempt(async () => {
        const k = await accounts.keys.createProjectKey({ project: s.slug, workspace: s.workspace, name: `w${i}` });
        written.keys.push(k.id);
      });
      await attempt(async () => {
        await accounts.audit.record({
          workspace: s.workspace,
          actor: 'service:failover-test',
          action: 'key.created',
          target: `n:${i}`,
          source: 'test',
          requestId: `r${i}`,
        });
        written.audit++;
      });
      await attempt(async () => {
        const id = `grant-${i}-${Math.random().toString(36).slice(2, 8)}`;
        await grants.upsert(id, { accountId: s.userId, clientId: 'failover-client', kind: 'Grant' }, 3600);
        written.grants.push(id);
      });
      if (i % 10 === 0)
        await attempt(async () => {
          const u = await accounts.users.create({
            email: `w${i}-${Math.random().toString(36).slice(2, 8)}@example.com`,
            password: 'correct horse battery staple',
          });
          written.users.push(u.id);
        });
    }
  })();
  return {
    written,
    async stop(): Promise<Written> {
      running = false;
      await loop;
      return written;
    },
  };
}

/** What of `written` a client of the (new) primary cannot find. */
export async function lostWrites(accounts: Accounts, redis: Redis, s: Seed, written: Written): Promise<string[]> {
  const lost: string[] = [];
  for (const id of written.keys) if (!(await accounts.keys.getById(id))) lost.push(`key ${id}`);
  for (const id of written.users) if (!(await accounts.users.get(id))) lost.push(`user ${id}`);
  for (const id of written.grants) if (!(await accounts.oauthGrants.get(id))) lost.push(`grant ${id}`);
  const audit = await redis.xlen(K.auditLog(s.workspace));
  // The seed's own writes add audit entries too: fewer than the writer's acknowledged ones is a loss.
  if (audit < written.audit) lost.push(`${written.audit - audit} audit entries`);
  return lost;
}

/**
 * A write in the first moments after a failover may be refused as not yet replicated (a 503 to a
 * caller; docs/operations.md "Write durability"): tried again as a client would, for up to 5 s.
 * Any other error ends it. Resolves with the write's value and when the confirmed attempt began.
 */
export async function onceReplicated<T>(write: () => Promise<T>): Promise<{ value: T; startedAt: number }> {
  let startedAt = performance.now();
  const value = await waitFor(
    async () => {
      startedAt = performance.now();
      try {
        return { done: await write() };
      } catch (err) {
        if (String(err).includes(NOT_REPLICATED)) return null;
        throw new GiveUp(String(err));
      }
    },
    { timeout: 5_000, interval: 50, message: 'a write confirmed by the replicas after the failover' },
  );
  return { value: value.done, startedAt };
}
