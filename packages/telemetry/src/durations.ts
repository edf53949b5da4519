/**
 * The services' duration histograms, declared once here with their buckets and the closed sets
 * their labels take (docs/operations.md "Reading the metrics"; docs/security.md "Bounds": no
 * path, slug, key or tool name from a request is ever a label value). Both services register
 * them with durationHistograms(); the recorders it returns are what the request path calls.
 */
import type { Registry } from 'prom-client';
import { registerHistogram, type HistogramCell, type HistogramSpec } from './histogram.ts';

/**
 * A request's answer, in seconds: fine steps over 0.5-50 ms, where the services' normal answers
 * fall, so histogram_quantile() reads p50 and p99 within a third of their value; coarser up to
 * 5 s (a sign-in's password hash, a slow search).
 */
const REQUEST_BUCKETS = [
  0.0005, 0.00075, 0.001, 0.0015, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1, 0.25, 0.5, 1, 2.5, 5,
] as const;

/**
 * A Redis command's reply, in seconds: a healthy Redis answers within a millisecond; the request
 * clients' command timeout is 400 ms (@svc/accounts connectRedis), so 0.5 is the last bound.
 */
const REDIS_BUCKETS = [0.0001, 0.00025, 0.0005, 0.00075, 0.001, 0.0015, 0.002, 0.003, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5] as const;

/** An outbound call's answer, in seconds: an upstream's call may take up to its 60 s timeout. */
const OUTBOUND_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60] as const;

/** The classes of route a request's duration is told by: the gateway's, then the auth-service's. */
export const ROUTE_CLASSES = ['mcp', 'rest', 'management', 'oauth', 'page', 'dashboard', 'health', 'other'] as const;
export type RouteClass = (typeof ROUTE_CLASSES)[number];

/** An answer's status class; `error` (outbound only): no answer came (refused, unreachable, timed out). */
export const OUTCOMES = ['2xx', '3xx', '4xx', '5xx', 'error'] as const;

/** Who an outbound call goes to: a workspace's webhook receiver, a project's upstream MCP server. */
export const OUTBOUND_KINDS = ['webhook', 'upstream'] as const;
export type OutboundKind = (typeof OUTBOUND_KINDS)[number];

/**
 * The Redis commands timed under their own name (ioredis' lower-case names): those the stores,
 * the limiter and oidc-provider's adapter send. Any other is timed as `other`.
 */
// prettier-ignore
export const REDIS_COMMANDS: ReadonlySet<string> = new Set([
  'get', 'set', 'del', 'unlink', 'exists', 'getdel', 'mget', 'incr', 'incrby', 'expire', 'pexpire', 'ttl', 'pttl',
  'hget', 'hset', 'hsetnx', 'hmget', 'hgetall', 'hdel', 'hlen', 'hvals', 'hincrby',
  'sadd', 'srem', 'smembers', 'sismember', 'scard', 'sscan',
  'zadd', 'zrem', 'zrange', 'zrangebyscore', 'zscore', 'zcard', 'zrevrank',
  'xadd', 'xrange', 'xrevrange',
  'evalsha', 'eval', 'multi', 'exec', 'wait', 'publish', 'scan', 'ping',
]);

/** The one table of histograms. */
export const HISTOGRAMS = {
  request: {
    name: 'svc_http_request_duration_seconds',
    help: 'Time from a request reaching the service to its answer written, by route class and status class',
    labelNames: ['route', 'outcome'],
    buckets: REQUEST_BUCKETS,
  },
  redisCommand: {
    name: 'svc_redis_command_duration_seconds',
    help: 'Time from a command sent to Redis to its reply (or its failure), by command (a fixed set, others as "other")',
    labelNames: ['command'],
    buckets: REDIS_BUCKETS,
  },
  outbound: {
    name: 'svc_outbound_duration_seconds',
    help: 'Time of an outbound call from sent to answered (or failed), by kind and outcome',
    labelNames: ['kind', 'outcome'],
    buckets: OUTBOUND_BUCKETS,
  },
} as const satisfies Record<string, HistogramSpec>;

/** The recorders of the table's histograms: what the request path, the Redis client and outbound calls call. */
export interface Durations {
  /** One answer of a route of class `route` with `status`, `seconds` after the request reached the service. */
  request(route: RouteClass, status: number, seconds: number): void;
  /** One Redis command's reply (or failure) by its name, `seconds` after it was sent. */
  command(name: string, seconds: number): void;
  /** One outbound call of `kind`; `status` is the answer's, null when none came. */
  outbound(kind: OutboundKind, status: number | null, seconds: number): void;
}

/** The index in OUTCOMES of an answer's status; null (no answer) is `error`. */
function outcomeIndex(status: number | null): number {
  if (status === null) return 4;
  return status < 300 ? 0 : status < 400 ? 1 : status < 500 ? 2 : 3;
}

/** Registers the table's histograms in `registry`. */
export function durationHistograms(registry: Registry): Durations {
  const requests = registerHistogram(registry, HISTOGRAMS.request);
  const commands = registerHistogram(registry, HISTOGRAMS.redisCommand);
  const outbound = registerHistogram(registry, HISTOGRAMS.outbound);
  // Each row is made once, its cells on their first observation: only combinations seen are exported.
  const byRoute = rows(ROUTE_CLASSES);
  const byKind = rows(OUTBOUND_KINDS);
  const byCommand = new Map<string, HistogramCell>();
  let other: HistogramCell | undefined;
  const commandCell = (name: string): HistogramCell => {
    const lower = name.toLowerCase();
    if (!REDIS_COMMANDS.has(lower)) return (other ??= commands.cell('other'));
    const cell = commands.cell(lower);
    byCommand.set(name, cell);
    return cell;
  };
  return {
    request(route, status, seconds) {
      const row = byRoute[route];
      const i = outcomeIndex(status);
      (row[i] ??= requests.cell(route, OUTCOMES[i]!)).observe(seconds);
    },
    command(name, seconds) {
      (byCommand.get(name) ?? commandCell(name)).observe(seconds);
    },
    outbound(kind, status, seconds) {
      const row = byKind[kind];
      const i = outcomeIndex(status);
      (row[i] ??= outbound.cell(kind, OUTCOMES[i]!)).observe(seconds);
    },
  };
}

/** One row of cells per value of `first`, indexed by outcome. */
function rows<K extends string>(first: readonly K[]): Record<K, (HistogramCell | undefined)[]> {
  return Object.fromEntries(first.map((k) => [k, OUTCOMES.map(() => undefined)])) as Record<K, (HistogramCell | undefined)[]>;
}
