/**
 * A Prometheus histogram kept in plain numbers (docs/operations.md "Reading the metrics"): each
 * label combination is a cell of fixed bucket counts, so an observation is a bucket search, two
 * additions and an increment, with nothing hashed or allocated. The cells become the text
 * exposition format's `_bucket{le=...}`, `_sum` and `_count` lines only when /metrics is read,
 * written by prom-client with the services' other metrics. (prom-client's own Histogram joins
 * the label values into a string on every observe(); the gateway's counters are tallied outside
 * prom-client for the same reason: docs/benchmarks.md.)
 */
import type { Metric, Registry } from 'prom-client';

/** One histogram: its name, help text, label names and bucket upper bounds (seconds, ascending). */
export interface HistogramSpec {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  /** `+Inf` is added after the last. */
  readonly buckets: readonly number[];
}

/** The observations of one label combination. */
export class HistogramCell {
  /** Observations per bucket (not cumulative), `+Inf` last. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  private readonly bounds: Float64Array;

  constructor(bounds: readonly number[]) {
    this.bounds = Float64Array.from(bounds);
    this.counts = new Float64Array(bounds.length + 1);
  }

  /** Counts one value (seconds) in the first bucket whose upper bound is at least it. */
  observe(seconds: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += seconds;
    this.count++;
  }

  /** Back to no observations (prom-client's resetMetrics()). */
  reset(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}

/** A registered histogram: its cells, one per label combination. */
export interface Histogram {
  /**
   * The cell of these label values (in the order of `labelNames`), made on first use. Values come
   * from closed sets only (docs/security.md "Bounds"): a cell is never removed.
   */
  cell(...values: string[]): HistogramCell;
}

/** A value line of prom-client's metric objects. */
interface ValueLine {
  metricName: string;
  labels: Record<string, string>;
  value: number;
}

/** Registers `spec` in `registry` and returns its cells' factory. */
export function registerHistogram(registry: Registry, spec: HistogramSpec): Histogram {
  const cells = new Map<string, { labels: Record<string, string>; cell: HistogramCell }>();
  const les = [...spec.buckets.map(String), '+Inf'];
  const lines = (): ValueLine[] => {
    const out: ValueLine[] = [];
    for (const { labels, cell } of cells.values()) {
      let cumulative = 0;
      for (let i = 0; i < les.length; i++) {
        cumulative += cell.counts[i]!;
        out.push({ metricName: `${spec.name}_bucket`, labels: { ...labels, le: les[i]! }, value: cumulative });
      }
      out.push({ metricName: `${spec.name}_sum`, labels, value: cell.sum });
      out.push({ metricName: `${spec.name}_count`, labels, value: cell.count });
    }
    return out;
  };
  // What prom-client's Registry reads of a metric: its name, type, help and get() (the values,
  // each line named), reset() for resetMetrics().
  const metric = {
    name: spec.name,
    help: spec.help,
    type: 'histogram',
    aggregator: 'sum',
    get: async () => ({ name: spec.name, help: spec.help, type: 'histogram', aggregator: 'sum', values: lines() }),
    reset: () => {
      for (const { cell } of cells.values()) cell.reset();
    },
  };
  registry.registerMetric(metric as unknown as Metric);
  return {
    cell(...values) {
      if (values.length !== spec.labelNames.length) throw new Error(`${spec.name} takes ${spec.labelNames.join(', ')}`);
      const key = values.join('\n');
      let entry = cells.get(key);
      if (!entry) {
        const labels = Object.fromEntries(spec.labelNames.map((n, i) => [n, values[i]!]));
        cells.set(key, (entry = { labels, cell: new HistogramCell(spec.buckets) }));
      }
      return entry.cell;
    },
  };
}
