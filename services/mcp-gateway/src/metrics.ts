/** Prometheus metrics of one gateway instance (its own registry, so tests can run several). */
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'svc_gateway_requests_total',
    help: 'Requests by route kind and status',
    labelNames: ['route', 'status'],
    registers: [registry],
  });
  const toolCalls = new Counter({
    name: 'svc_gateway_tool_calls_total',
    help: 'tools/call by tool and outcome',
    labelNames: ['tool', 'outcome'],
    registers: [registry],
  });
  const rejected = new Counter({
    name: 'svc_gateway_rate_limited_total',
    help: 'Requests refused by the rate limiter or the monthly quota',
    labelNames: ['reason'],
    registers: [registry],
  });
  const fairUse = new Counter({
    name: 'svc_gateway_fair_use_exceeded_total',
    help: 'Requests of fair-use plans past their monthly figure (never blocked)',
    labelNames: ['workspace'],
    registers: [registry],
  });
  const authCache = new Counter({
    name: 'svc_gateway_auth_cache_total',
    help: 'Credential resolution cache lookups',
    labelNames: ['result'],
    registers: [registry],
  });
  const cacheSize = new Gauge({
    name: 'svc_gateway_auth_cache_entries',
    help: 'Entries in the credential resolution cache',
    registers: [registry],
  });
  const redisCommands = new Counter({
    name: 'svc_gateway_redis_commands_total',
    help: 'Commands sent to Redis by the request path (round trips, pipelines aside)',
    registers: [registry],
  });
  return {
    registry,
    redisCommands,
    requests,
    /** Counts a request; per route and status (the hot path: the labelled child is looked up once). */
    countRequest: twoLabels(requests),
    toolCalls,
    countToolCall: twoLabels(toolCalls),
    rejected,
    fairUse,
    authCache,
    cacheSize,
  };
}

/**
 * A counter's children by their two label values, each made once: prom-client otherwise hashes
 * the label object on every increment. Only for labels of a bounded set (routes and statuses,
 * registered tools and outcomes).
 */
function twoLabels(counter: Counter<string>): (a: string | number, b: string | number) => void {
  const children = new Map<string, { inc: () => void }>();
  return (a, b) => {
    const id = `${a}\n${b}`;
    let child = children.get(id);
    if (!child) children.set(id, (child = counter.labels(String(a), String(b))));
    child.inc();
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
