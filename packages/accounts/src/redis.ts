/** Redis connections shared by the services, the admin CLI and the tests. */
import { Cluster, Redis, type Command, type RedisOptions } from 'ioredis';

export type { Redis } from 'ioredis';

export interface RedisConnectOptions {
  /**
   * Fail commands at once while disconnected instead of queueing them (request paths: a 503 now
   * is better than a request that hangs until Redis returns).
   */
  failFast?: boolean;
  /**
   * Send the commands issued in one turn of the event loop in one socket write per connection
   * (request paths under load: writePerTurn).
   */
  batchWrites?: boolean;
  name?: string;
  /** Treat `url` as a comma-separated list of Redis Cluster seed nodes (REDIS_CLUSTER=on). */
  cluster?: boolean;
  /**
   * Ask these sentinels for the master (REDIS_SENTINELS, REDIS_SENTINEL_MASTER): `url` then gives
   * only the password, TLS and database (docs/operations.md "Redis Sentinel").
   */
  sentinel?: SentinelTarget | null;
  /**
   * Milliseconds after which a command that got no reply fails with "Command timed out" (ioredis
   * commandTimeout). A Redis that stops answering without closing the connection (paused,
   * overloaded, a network partition) otherwise holds every request as long as it is away. The
   * default is REQUEST_COMMAND_TIMEOUT_MS for failFast clients and none for the others (the admin
   * CLI, subscribers).
   */
  commandTimeoutMs?: number;
}

/** The sentinels and the master's name, as @svc/config's RedisSentinel gives them. */
export interface SentinelTarget {
  sentinels: { host: string; port: number }[];
  masterName: string;
  password: string | null;
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

/**
 * Longest pause between reconnection attempts of a Sentinel client (docs/operations.md "Redis
 * Sentinel"). Each attempt asks a sentinel for the master: a short pause finds the promoted
 * replica within it of the sentinels naming it, where RECONNECT_MAX_MS could add a second to
 * every failover.
 */
const SENTINEL_RECONNECT_MAX_MS = 200;

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
  };
  const commandTimeout = options.commandTimeoutMs ?? (options.failFast ? REQUEST_COMMAND_TIMEOUT_MS : undefined);
  // A request client's timeout is kept by commandDeadlines (one sweep per connection); another
  // client's by ioredis (a timer per command: its offline queue holds commands no sweep sees).
  const deadline = options.failFast ? commandTimeout : undefined;
  if (commandTimeout !== undefined && deadline === undefined) opts.commandTimeout = commandTimeout;
  if (options.sentinel) {
    const redis = connectSentinel(url, options.sentinel, opts, deadline);
    if (options.batchWrites) writePerTurn(redis);
    return redis;
  }
  if (options.cluster) {
    const nodes = url.split(',').map((u) => {
      const parsed = new URL(u.trim());
      return { host: parsed.hostname, port: Number(parsed.port || 6379) };
    });
    const first = new URL(url.split(',')[0]!.trim());
    const cluster = new Cluster(nodes, {
      enableOfflineQueue: opts.enableOfflineQueue ?? true,
      clusterRetryStrategy: opts.retryStrategy,
      redisOptions: {
        connectionName: opts.connectionName,
        // Each node fails fast as the cluster does: a node whose connection was dropped refuses
        // commands at once instead of queueing them (see dropConnectionOnTimeout).
        ...(options.failFast ? { enableOfflineQueue: false } : {}),
        ...(opts.commandTimeout !== undefined ? { commandTimeout: opts.commandTimeout } : {}),
        maxRetriesPerRequest: opts.maxRetriesPerRequest ?? null,
        ...(first.password ? { password: decodeURIComponent(first.password) } : {}),
        ...(first.username ? { username: decodeURIComponent(first.username) } : {}),
        ...(first.protocol === 'rediss:' ? { tls: {} } : {}),
      },
    });
    cluster.on('error', () => {});
    if (deadline !== undefined) dropStuckNodes(cluster, deadline);
    if (options.batchWrites) cluster.on('+node', (node: Redis) => writePerTurn(node));
    // Cluster speaks the same command API; the stores only use commands both offer.
    return cluster as unknown as Redis;
  }
  const redis = new Redis(url, opts);
  // ioredis emits 'error' on every failed reconnect; the owner logs state changes itself.
  redis.on('error', () => {});
  if (deadline !== undefined) dropConnectionOnTimeout(redis, deadline);
  if (options.batchWrites) writePerTurn(redis);
  return redis;
}

/**
 * A client of the master that the sentinels name (docs/operations.md "Redis Sentinel"). A crashed
 * master closes the connection; on a planned failover the sentinels announce +switch-master
 * (watchSwitchMaster drops the connection at once) and later close the old master's clients; a
 * write refused as READONLY (a demoted master still reached) reconnects too. Each reconnection
 * asks the sentinels for the master again.
 */
function connectSentinel(url: string, target: SentinelTarget, opts: RedisOptions, deadline: number | undefined): Redis {
  const parsed = new URL(url);
  const db = Number(parsed.pathname.replace(/^\//, '') || 0);
  const tls = parsed.protocol === 'rediss:';
  const redis = new Redis({
    ...opts,
    retryStrategy: (times) => Math.min(50 * times, SENTINEL_RECONNECT_MAX_MS),
    sentinels: target.sentinels,
    name: target.masterName,
    role: 'master',
    sentinelRetryStrategy: (times) => Math.min(50 * times, SENTINEL_RECONNECT_MAX_MS),
    reconnectOnError: (err) => err.message.startsWith('READONLY'),
    ...(target.password ? { sentinelPassword: target.password } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(db ? { db } : {}),
    ...(tls ? { tls: {}, sentinelTLS: {}, enableTLSForSentinelMode: true } : {}),
  });
  redis.on('error', () => {});
  if (deadline !== undefined) dropConnectionOnTimeout(redis, deadline);
  watchSwitchMaster(redis, target, tls);
  return redis;
}

/**
 * Listens to every sentinel's +switch-master ("<name> <old-ip> <old-port> <new-ip> <new-port>")
 * and drops the client's connection when the new master is not the one it is connected to.
 * (ioredis' own failoverDetector drops it on every such message: each sentinel announces the same
 * switch as it learns of it, up to seconds apart, so a client already on the new master would be
 * disconnected again.)
 */
function watchSwitchMaster(redis: Redis, target: SentinelTarget, tls: boolean): void {
  const watchers = target.sentinels.map(({ host, port }) => {
    const watcher = new Redis({
      host,
      port,
      connectionName: 'svc-sentinel-watch',
      retryStrategy: (times) => Math.min(50 * times, SENTINEL_RECONNECT_MAX_MS),
      ...(target.password ? { password: target.password } : {}),
      ...(tls ? { tls: {} } : {}),
    });
    watcher.on('error', () => {});
    watcher.subscribe(SWITCH_MASTER).catch(() => {});
    watcher.on('message', (_channel: string, message: string) => {
      const [name, , , newHost, newPort] = message.split(' ');
      const stream = redis.stream as Redis['stream'] | undefined;
      if (name !== target.masterName || !stream || stream.destroyed) return;
      if (stream.remoteAddress !== newHost || String(stream.remotePort) !== newPort) stream.destroy();
    });
    return watcher;
  });
  redis.once('end', () => watchers.forEach((w) => w.disconnect()));
}

const SWITCH_MASTER = '+switch-master';

/**
 * A request client's command that times out means Redis stopped answering (docs/operations.md
 * "When Redis stops answering"): the connection is dropped at once, so every command still
 * waiting on it fails now (MaxRetriesPerRequestError), the client leaves "ready" and every later
 * command fails at once until Redis answers a new connection's ready check. Without this each
 * command of a request waits out its own timeout, one after the other.
 */
function dropConnectionOnTimeout(redis: Redis, timeoutMs: number): void {
  commandDeadlines(redis, timeoutMs, () => {
    // A Cluster node's client has no stream until its first connection.
    const stream = redis.stream as Redis['stream'] | undefined;
    if (stream && !stream.destroyed) stream.destroy();
  });
}

/**
 * The commands a client is given in one turn of the event loop leave in one socket write
 * (docs/auth-service.md "Storage round trips"): the turn's first command corks the connection,
 * and the turn's end (setImmediate: after the turn's I/O callbacks) uncorks it, so Node writes
 * what was buffered at once. ioredis's auto-pipelining batches the same way at several times the
 * cost per command (a pipeline, two promises and a deferred callback for each, docs/benchmarks.md
 * "2026-12-07 (third entry)"), and it holds a turn's commands back while the previous batch awaits
 * its replies. Commands written before the connection is ready (its handshake) are not held.
 */
function writePerTurn(redis: Redis): void {
  const send = redis.sendCommand.bind(redis);
  let corked: Redis['stream'] | null = null;
  const uncork = (): void => {
    const stream = corked;
    corked = null;
    stream?.uncork();
  };
  redis.sendCommand = (command: Command, stream?: Parameters<Redis['sendCommand']>[1]) => {
    if (corked === null && stream === undefined && redis.status === 'ready') {
      const own = redis.stream as Redis['stream'] | undefined;
      if (own?.writable) {
        corked = own;
        own.cork();
        setImmediate(uncork);
      }
    }
    return send(command, stream);
  };
}

/** When a command was handed to its connection (performance.now()); a command sent again keeps its first. */
const SENT_AT = Symbol('svc.sentAt');
type SentCommand = Command & { [SENT_AT]?: number };

/** How often a connection's oldest unanswered command is looked at: a command fails at most this long past its timeout. */
const DEADLINE_SWEEP_MS = 50;

/**
 * A request client's command timeout, kept by one sweep per connection where ioredis's
 * `commandTimeout` sets and clears a timer for every command (docs/benchmarks.md "2026-12-07
 * (third entry)"). Redis answers a connection's commands in the order they were written, so its
 * oldest unanswered command is the head of ioredis's queue of written commands: when that one has
 * waited `timeoutMs`, it fails with "Command timed out" and `stuck` runs (which drops the
 * connection, failing the others). A command fails between `timeoutMs` and `timeoutMs` +
 * DEADLINE_SWEEP_MS after it was written, where ioredis's timer failed it at `timeoutMs`. Only for
 * clients without an offline queue: a command that is not written fails at once, so none waits
 * anywhere but in that queue.
 */
function commandDeadlines(redis: Redis, timeoutMs: number, stuck: () => void): void {
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (command: SentCommand, stream?: Parameters<Redis['sendCommand']>[1]) => {
    command[SENT_AT] ??= performance.now();
    return send(command, stream);
  };
  const sweep = setInterval(
    () => {
      const oldest = redis.commandQueue.peekFront()?.command as SentCommand | undefined;
      const sentAt = oldest?.[SENT_AT];
      if (sentAt === undefined || performance.now() - sentAt < timeoutMs) return;
      oldest!.reject(new Error(COMMAND_TIMED_OUT));
      stuck();
    },
    Math.min(DEADLINE_SWEEP_MS, timeoutMs),
  );
  sweep.unref();
  redis.once('end', () => clearInterval(sweep));
}

const COMMAND_TIMED_OUT = 'Command timed out';

/** The error of a command refused at once because its Cluster node stopped answering. */
const NODE_STUCK = 'Redis node stopped answering';

/**
 * How long a Cluster node whose command timed out is left alone: its commands fail at once for
 * this long, then go to it again (one more command timeout if it is still stuck).
 */
const STUCK_NODE_PROBE_MS = 500;

/**
 * dropConnectionOnTimeout for each node of a Cluster (docs/operations.md "When Redis stops
 * answering"): a command to a node that timed out drops that node's connection and marks the
 * node stuck: its commands fail at once without being sent for STUCK_NODE_PROBE_MS, after which
 * it is tried again. The other nodes are not affected. (ioredis replaces a dropped node's client by a new one on the next command, so
 * without this each command would wait out its own timeout.)
 */
function dropStuckNodes(cluster: Cluster, timeoutMs: number): void {
  const stuckSince = new Map<string, number>();
  cluster.on('+node', (node: Redis) => {
    const address = `${node.options.host}:${node.options.port}`;
    commandDeadlines(node, timeoutMs, () => {
      stuckSince.set(address, performance.now());
      const nodeStream = node.stream as Redis['stream'] | undefined;
      if (nodeStream && !nodeStream.destroyed) nodeStream.destroy();
    });
    const send = node.sendCommand.bind(node);
    node.sendCommand = (command: Command, stream?: Parameters<Redis['sendCommand']>[1]) => {
      const since = stuckSince.get(address);
      if (since !== undefined && performance.now() - since < STUCK_NODE_PROBE_MS) {
        command.reject(new Error(NODE_STUCK));
        return command.promise;
      }
      return send(command, stream);
    };
  });
}

/** Marks a command already timed: ioredis may pass one command through sendCommand again (an offline queue's flush, a resend after a reconnection). */
const TIMED = Symbol('svc.timed');

/**
 * Tells `observe` the name of each command `redis` sends and the seconds from its sending to its
 * reply or failure (svc_redis_command_duration_seconds: docs/operations.md "Reading the
 * metrics"). On a Cluster the time includes a redirection to another node. One closure per
 * command, beside the promise and buffers ioredis makes for it.
 */
export function observeCommands(redis: Redis, observe: (command: string, seconds: number) => void): void {
  const send = redis.sendCommand.bind(redis) as (command: Command, ...rest: unknown[]) => Promise<unknown>;
  redis.sendCommand = ((command: Command & { [TIMED]?: true }, ...rest: unknown[]) => {
    if (command[TIMED]) return send(command, ...rest);
    command[TIMED] = true;
    const start = performance.now();
    const settled = (): void => observe(command.name, (performance.now() - start) / 1_000);
    command.promise.then(settled, settled);
    return send(command, ...rest);
  }) as Redis['sendCommand'];
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
  /^(READONLY|NOREPLICAS|Write not confirmed by replicas|Cluster isn't ready|Redis node stopped answering|Connection is closed|All sentinels are unreachable|Stream isn't writeable|Command timed out|connect ECONNREFUSED|read ECONNRESET|write EPIPE|Reached the max retries per request)/;

/**
 * True when `err` says the store was unreachable (closed, refused, reset, timed out), as opposed to
 * a bug or a bad request: such failures are answered 503 with Retry-After, never 500.
 */
export function isStoreError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return err.name === 'MaxRetriesPerRequestError' || STORE_ERROR.test(err.message);
}

/** Failures raised before a command was written: the connection was not writable or the node was marked stuck. */
const NOT_SENT = /^(Stream isn't writeable|Redis node stopped answering)/;

/**
 * True when `err` says the command never reached Redis, so nothing of it ran and it may be sent
 * again. A command that timed out or lost its connection after being written is not such a
 * failure: it may still run (docs/operations.md "When Redis stops answering").
 */
export function wasNotSent(err: unknown): boolean {
  return err instanceof Error && NOT_SENT.test(err.message);
}
