/**
 * Writes that are acknowledged only once replicas hold them (REDIS_WAIT_REPLICAS; docs/operations.md
 * "Write durability"). Redis replicates asynchronously: a primary that is replaced (a crash, or a
 * planned failover during which clients still write to the old primary) loses what it had not yet
 * sent. After each write through the returned client, WAIT asks the primary for the replicas'
 * acknowledgement; fewer than `replicas` within REPLICA_ACK_TIMEOUT_MS fails the write with a
 * store error (answered 503), so nothing reported as stored exists on the primary alone.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Cluster } from 'ioredis';
import type { Redis } from './redis.ts';

/**
 * How long a write waits for its replicas (WAIT's timeout). Below the request clients' command
 * timeout (400 ms, REQUEST_COMMAND_TIMEOUT_MS), so a WAIT that runs out is answered by Redis,
 * not dropped as a stuck connection; far above a healthy replica's acknowledgement (under 5 ms).
 */
export const REPLICA_ACK_TIMEOUT_MS = 250;

/** The message of a write that fewer replicas than asked confirmed (a store error, 503). */
export const NOT_REPLICATED = 'Write not confirmed by replicas';

/** Commands of the account model that change data (reads pass through untouched). */
const WRITES = new Set(['set', 'del', 'expire', 'hset', 'hsetnx', 'hdel', 'sadd', 'srem', 'zadd', 'zrem', 'xadd', 'eval', 'evalsha']);

/**
 * How a write its replicas have not confirmed is waited for again before it fails. Request paths
 * ask once: the caller gets a 503 with Retry-After and tries again itself. A one-shot command
 * (svc-admin) has no caller to retry: it asks up to `attempts` times, the pause between doubling
 * from `firstDelayMs` to `maxDelayMs`. The write itself is never sent again (it is on the primary
 * already); only the replicas' confirmation is asked for again.
 */
export interface ReplicaConfirmRetry {
  attempts: number;
  firstDelayMs: number;
  maxDelayMs: number;
}

const ASK_ONCE: ReplicaConfirmRetry = { attempts: 1, firstDelayMs: 0, maxDelayMs: 0 };

/** `redis` itself when `replicas` is 0; else a client whose writes resolve after WAIT confirms them. */
export function replicatedWrites(redis: Redis, replicas: number, retry: ReplicaConfirmRetry = ASK_ONCE): Redis {
  if (replicas === 0) return redis;
  const confirm = async () => {
    // WAIT counts the acknowledgements of this connection's writes: on Cluster, one connection per
    // master, so every master is asked (each WAIT returns at once where nothing is pending).
    const client: unknown = redis;
    const connections: Redis[] = client instanceof Cluster ? client.nodes('master') : [redis];
    // The sockets the write was answered on. A WAIT sent on a new one (a reconnect, perhaps to a
    // promoted replica) would count none of the write's acknowledgements and confirm nothing.
    const sockets = connections.map((c) => c.stream as unknown);
    const sameSockets = () => connections.every((c, i) => sockets[i] === undefined || c.stream === sockets[i]);
    for (let attempt = 1; ; attempt++) {
      const counts = await Promise.all(connections.map((c) => c.wait(replicas, REPLICA_ACK_TIMEOUT_MS)));
      const fewest = Math.min(...counts);
      const same = sameSockets();
      if (fewest >= replicas && same) return;
      if (attempt >= retry.attempts || !same)
        throw new Error(`${NOT_REPLICATED} (${same ? fewest : 0} of ${replicas} within ${REPLICA_ACK_TIMEOUT_MS} ms)`);
      await delay(Math.min(retry.firstDelayMs * 2 ** (attempt - 1), retry.maxDelayMs));
    }
  };
  const confirmed = async <T>(write: Promise<T>): Promise<T> => {
    const result = await write;
    await confirm();
    return result;
  };
  return new Proxy(redis, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (WRITES.has(prop)) return (...args: unknown[]) => confirmed(method.apply(target, args) as Promise<unknown>);
      if (prop === 'multi' || prop === 'pipeline') {
        return (...args: unknown[]) => {
          const batch = method.apply(target, args) as { exec: (...a: unknown[]) => Promise<unknown> };
          const exec = batch.exec.bind(batch);
          batch.exec = (...a: unknown[]) => confirmed(exec(...a));
          return batch;
        };
      }
      return method.bind(target);
    },
  });
}
