/** Redis connections shared by the services, the admin CLI and the tests. */
import { Cluster, Redis, type RedisOptions } from 'ioredis';

export type { Redis } from 'ioredis';

export interface RedisConnectOptions {
  /**
   * Fail commands at once while disconnected instead of queueing them (request paths: a 503 now
   * is better than a request that hangs until Redis returns).
   */
  failFast?: boolean;
  /** Batch the commands issued in one event-loop tick into one write (request paths under load). */
  autoPipelining?: boolean;
  name?: string;
  /** Treat `url` as a comma-separated list of Redis Cluster seed nodes (REDIS_CLUSTER=on). */
  cluster?: boolean;
}

/** A client for REDIS_URL that reconnects by itself, backing off up to 2 s. */
export function connectRedis(url: string, options: RedisConnectOptions = {}): Redis {
  const opts: RedisOptions = {
    connectionName: options.name ?? 'svc',
    lazyConnect: false,
    enableOfflineQueue: !options.failFast,
    maxRetriesPerRequest: options.failFast ? 0 : 3,
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 5), 2000),
    reconnectOnError: () => false,
    enableAutoPipelining: options.autoPipelining ?? false,
  };
  if (options.cluster) {
    const nodes = url.split(',').map((u) => {
      const parsed = new URL(u.trim());
      return { host: parsed.hostname, port: Number(parsed.port || 6379) };
    });
    const first = new URL(url.split(',')[0]!.trim());
    const cluster = new Cluster(nodes, {
      enableOfflineQueue: opts.enableOfflineQueue ?? true,
      enableAutoPipelining: opts.enableAutoPipelining ?? false,
      clusterRetryStrategy: opts.retryStrategy,
      redisOptions: {
        connectionName: opts.connectionName,
        maxRetriesPerRequest: opts.maxRetriesPerRequest ?? null,
        ...(first.password ? { password: decodeURIComponent(first.password) } : {}),
        ...(first.username ? { username: decodeURIComponent(first.username) } : {}),
        ...(first.protocol === 'rediss:' ? { tls: {} } : {}),
      },
    });
    cluster.on('error', () => {});
    // Cluster speaks the same command API; the stores only use commands both offer.
    return cluster as unknown as Redis;
  }
  const redis = new Redis(url, opts);
  // ioredis emits 'error' on every failed reconnect; the owner logs state changes itself.
  redis.on('error', () => {});
  return redis;
}

/** Waits until the client is ready (or throws after timeoutMs). */
export async function waitReady(redis: Redis, timeoutMs = 10_000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`Redis not reachable within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const cleanup = () => {
      clearTimeout(timer);
      redis.off('ready', onReady);
    };
    redis.on('ready', onReady);
  });
}
