/** Redis connections shared by the services, the admin CLI and the tests. */
import { Cluster, Redis, type Command, type RedisOptions } from 'ioredis';

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
  /**
   * Milliseconds after which a command that got no reply fails with "Command timed out" (ioredis
   * commandTimeout). A Redis that stops answering without closing the connection (paused,
   * overloaded, a network partition) otherwise holds every request as long as it is away. The
   * default is REQUEST_COMMAND_TIMEOUT_MS for failFast clients and none for the others (the admin
   * CLI, subscribers).
   */
  commandTimeoutMs?: number;
}

/**
 * Request paths' command timeout (docs/operations.md "When Redis stops answering"): far above the
 * slowest script of a request (a search over a large project, under 100 ms at p99), short enough
 * that a stuck Redis is answered 503 within REQUEST_STALL_ANSWER_MS with room for the request's
 * own work (a bcrypt comparison in sign-in).
 */
const REQUEST_COMMAND_TIMEOUT_MS = 400;

/** Every request path answers within this while Redis is stuck (docs/operations.md). */
export const REQUEST_STALL_ANSWER_MS = 1_000;

/** The Retry-After (seconds) of both services' 503 while Redis is unreachable or stuck. */
export const STORE_DOWN_RETRY_AFTER_SECONDS = 5;

/** Longest pause between reconnection attempts: a Redis that returns is used again within it. */
const RECONNECT_MAX_MS = 1_000;

/** A client for REDIS_URL that reconnects by itself, backing off up to RECONNECT_MAX_MS. */
export function connectRedis(url: string, options: RedisConnectOptions = {}): Redis {
  const opts: RedisOptions = {
    connectionName: options.name ?? 'svc',
    lazyConnect: false,
    enableOfflineQueue: !options.failFast,
    maxRetriesPerRequest: options.failFast ? 0 : 3,
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 5), RECONNECT_MAX_MS),
    reconnectOnError: () => false,
    // A command that failed is never sent again behind the caller's back (it may have landed).
    autoResendUnfulfilledCommands: !options.failFast,
    enableAutoPipelining: options.autoPipelining ?? false,
  };
  const commandTimeout = options.commandTimeoutMs ?? (options.failFast ? REQUEST_COMMAND_TIMEOUT_MS : undefined);
  if (commandTimeout !== undefined) opts.commandTimeout = commandTimeout;
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
        ...(commandTimeout !== undefined ? { commandTimeout } : {}),
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
  if (options.failFast && commandTimeout !== undefined) dropConnectionOnTimeout(redis);
  return redis;
}

/**
 * A request client's command that times out means Redis stopped answering (docs/operations.md
 * "When Redis stops answering"): the connection is dropped at once, so every command still
 * waiting on it fails now (MaxRetriesPerRequestError), the client leaves "ready" and every later
 * command fails at once until Redis answers a new connection's ready check. Without this each
 * command of a request waits out its own timeout, one after the other.
 */
function dropConnectionOnTimeout(redis: Redis): void {
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (command: Command, stream?: Parameters<Redis['sendCommand']>[1]) => {
    const sent = send(command, stream);
    command.promise.catch((err: unknown) => {
      if (err instanceof Error && err.message === COMMAND_TIMED_OUT && !redis.stream.destroyed) redis.stream.destroy();
    });
    return sent;
  };
}

const COMMAND_TIMED_OUT = 'Command timed out';

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

/** /readyz answers 503 when Redis has not answered PING within this (docs/contract.md "Operator interface"). */
export const READY_TIMEOUT_MS = 800;

/**
 * True when Redis answered PING within `timeoutMs`: the readiness check (docs/contract.md
 * "Operator interface": /readyz reports whether Redis answers). It never waits longer than
 * `timeoutMs`, so a paused Redis makes /readyz answer 503 at once instead of hanging with it.
 */
export async function pingWithin(redis: Redis, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([redis.ping().then(() => true as const), late]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** Messages and names of ioredis errors that mean "Redis did not answer", not "the command was wrong". */
const STORE_ERROR =
  /^(Connection is closed|Stream isn't writeable|Command timed out|connect ECONNREFUSED|read ECONNRESET|write EPIPE|Reached the max retries per request)/;

/**
 * True when `err` says the store was unreachable (closed, refused, reset, timed out), as opposed to
 * a bug or a bad request: such failures are answered 503 with Retry-After, never 500.
 */
export function isStoreError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return err.name === 'MaxRetriesPerRequestError' || STORE_ERROR.test(err.message);
}
