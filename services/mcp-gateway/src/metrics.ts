/** Prometheus metrics of one gateway instance (its own registry, so tests can run several). */
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { durationHistograms } from '@svc/telemetry';

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requestTally = tally('route', 'status');
  new Counter({
    name: 'svc_gateway_requests_total',
    help: 'Requests by route kind and status',
    labelNames: ['route', 'status'],
    registers: [registry],
    collect() {
      requestTally.addTo(this);
    },
  });
  const toolCallTally = tally('tool', 'outcome');
  new Counter({
    name: 'svc_gateway_tool_calls_total',
    help: 'tools/call by tool and outcome',
    labelNames: ['tool', 'outcome'],
    registers: [registry],
    collect() {
      toolCallTally.addTo(this);
    },
  });
  const rejected = new Counter({
    name: 'svc_gateway_rate_limited_total',
    help: 'Requests refused by the rate limiter or the monthly quota',
    labelNames: ['reason'],
    registers: [registry],
  });
  const fairUse = new Counter({
    name: 'svc_gateway_fair_use_exceeded_total',
    help: 'Requests of fair-use plans past their monthly figure (never blocked), by plan; the log names the workspace',
    // Every label takes a bounded set of values (docs/security.md "Bounds"): a workspace label
    // would add a series per tenant to every scrape.
    labelNames: ['plan'],
    registers: [registry],
  });
  const authCacheTally = tally('result');
  const authCache = new Counter({
    name: 'svc_gateway_auth_cache_total',
    help: 'Credential resolution cache lookups',
    labelNames: ['result'],
    registers: [registry],
    collect() {
      authCacheTally.addTo(this);
    },
  });
  const cacheSize = new Gauge({
    name: 'svc_gateway_auth_cache_entries',
    help: 'Entries in the credential resolution cache',
    registers: [registry],
  });
  let commandsSent = 0;
  // Read through the registry only; counted by countCommand.
  new Counter({
    name: 'svc_gateway_redis_commands_total',
    help: 'Commands sent to Redis by the request path (round trips, pipelines aside)',
    registers: [registry],
    collect() {
      this.inc(commandsSent);
      commandsSent = 0;
    },
  });
  const durations = durationHistograms(registry);
  return {
    registry,
    /**
     * The duration histograms (docs/operations.md "Reading the metrics"): requests by route class
     * (request-handler.ts), the request connection's Redis commands (app.ts), and outbound calls:
     * an upstream's forwarded call is `durations.outbound('upstream', status, seconds)`, with the
     * answer's status, or null when none came.
     */
    durations,
    /** Counts a command sent to Redis. */
    countCommand: () => void commandsSent++,
    /** Counts a request, per route and status. */
    countRequest: (route: string, status: number) => requestTally.count(route, status),
    countToolCall: (tool: string, outcome: string) => toolCallTally.count(tool, outcome),
    rejected,
    fairUse,
    authCache,
    /** Counts a lookup of the credential cache. */
    countCacheLookup: (hit: boolean) => authCacheTally.count(hit ? 'hit' : 'miss', ''),
    cacheSize,
  };
}

/**
 * Counts of the hot path kept as plain numbers, by up to two label values, and added into their
 * Prometheus counter when it is read (its `collect`): prom-client hashes the label values on every
 * increment, which cost more than the rest of counting a request. Only for labels of a bounded set
 * (routes and statuses, registered tools and outcomes, hit and miss). A counter with one label
 * counts with '' as the second value.
 */
function tally(first: string, second?: string) {
  const counts = new Map<string | number, Map<string | number, { n: number }>>();
  return {
    count(a: string | number, b: string | number): void {
      let byB = counts.get(a);
      if (!byB) counts.set(a, (byB = new Map()));
      const cell = byB.get(b);
      if (cell) cell.n++;
      else byB.set(b, { n: 1 });
    },
    addTo(counter: Counter<string>): void {
      for (const [a, byB] of counts)
        for (const [b, cell] of byB) {
          if (cell.n === 0) continue;
          counter.inc(second === undefined ? { [first]: a } : { [first]: a, [second]: b }, cell.n);
          cell.n = 0;
        }
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
