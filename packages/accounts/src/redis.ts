/** Redis connections shared by the services, the admin CLI and the tests. */
import { Redis, type RedisOptions } from 'ioredis';

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
