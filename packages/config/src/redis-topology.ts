/**
 * Where Redis is and how many replicas confirm an account write (docs/operations.md "Redis
 * Sentinel", "Redis Cluster", "Write durability"): the REDIS_* variables, checked together.
 */
import { ConfigError } from './config-error.ts';
import type { Config, RedisSentinel } from './config-shape.ts';

/** Most replicas REDIS_WAIT_REPLICAS may ask for: far above any real topology, a typo's guard. */
export const MAX_WAIT_REPLICAS = 16;

/**
 * REDIS_WAIT_REPLICAS when unset and Redis is behind Sentinel or a Cluster: one replica confirms
 * each account write, so a planned failover loses none that was acknowledged (docs/operations.md
 * "Write durability"). A standalone Redis has no replica to ask: 0.
 */
export const DEFAULT_WAIT_REPLICAS_REPLICATED = 1;

/** The REDIS_* variables as the schema has read them. */
export interface RedisVariables {
  REDIS_URL: string;
  REDIS_CLUSTER: 'on' | 'off';
  REDIS_SENTINELS?: string;
  REDIS_SENTINEL_MASTER?: string;
  REDIS_SENTINEL_PASSWORD?: string;
  REDIS_WAIT_REPLICAS?: number;
}

/** The topology and the replicas to wait for; throws ConfigError on variables that do not go together. */
export function redisTopology(c: RedisVariables): Pick<Config, 'redisCluster' | 'redisSentinel' | 'redisWaitReplicas'> {
  const redisCluster = c.REDIS_CLUSTER === 'on' || c.REDIS_URL.includes(',');
  const redisSentinel = sentinelConfig(c);
  const replicated = redisCluster || redisSentinel !== null;
  return {
    redisCluster,
    redisSentinel,
    redisWaitReplicas: c.REDIS_WAIT_REPLICAS ?? (replicated ? DEFAULT_WAIT_REPLICAS_REPLICATED : 0),
  };
}

/** REDIS_SENTINELS and REDIS_SENTINEL_MASTER go together, and not with a cluster. */
function sentinelConfig(c: RedisVariables): RedisSentinel | null {
  const { REDIS_SENTINELS: sentinels, REDIS_SENTINEL_MASTER: masterName } = c;
  if (!sentinels && !masterName) {
    if (c.REDIS_SENTINEL_PASSWORD) throw new ConfigError('REDIS_SENTINEL_PASSWORD is set without REDIS_SENTINELS');
    return null;
  }
  if (!sentinels) throw new ConfigError('REDIS_SENTINEL_MASTER is set without REDIS_SENTINELS (the sentinels to ask for it)');
  if (!masterName) throw new ConfigError('REDIS_SENTINELS is set without REDIS_SENTINEL_MASTER (the name of the master to ask for)');
  if (c.REDIS_CLUSTER === 'on' || c.REDIS_URL.includes(','))
    throw new ConfigError('REDIS_SENTINELS cannot be used with a Redis Cluster (REDIS_CLUSTER=on or several REDIS_URL nodes)');
  const hosts = sentinels
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  return {
    sentinels: hosts.map((hostPort) => {
      const at = hostPort.lastIndexOf(':');
      const port = Number(hostPort.slice(at + 1));
      if (port < 1 || port > 65535) throw new ConfigError(`REDIS_SENTINELS has a port out of range: ${hostPort}`);
      return { host: hostPort.slice(0, at), port };
    }),
    masterName,
    password: c.REDIS_SENTINEL_PASSWORD ?? null,
  };
}
