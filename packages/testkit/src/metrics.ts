/**
 * Reading a service's /metrics in tests: the series it shows, for tests that hold label values to
 * bounded sets (docs/security.md "Bounds"), and a strict reader of the Prometheus text exposition
 * format 0.0.4 that refuses a malformed line and checks each histogram's buckets.
 */

/**
 * Series whose set depends on timing, not on what callers send: which Redis commands a
 * background job (the last-used flush, the webhook worker) has sent by the time of a read. Their
 * one label takes a closed set (REDIS_COMMANDS of @svc/telemetry), which the tests of the
 * histograms check apart.
 */
const TIMING_DEPENDENT = /^svc_redis_command_duration_seconds_/;

/**
 * The metric series a service's /metrics shows (a series is its name and labels, its value aside),
 * but for those of TIMING_DEPENDENT. Read twice: a read's own answer is timed (route class
 * `health`) once it is written, so the first read of a test would lack it.
 */
export async function svcMetricSeries(baseUrl: string): Promise<Set<string>> {
  await (await fetch(`${baseUrl}/metrics`)).text();
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  return new Set(
    text
      .split('\n')
      .filter((l) => l.startsWith('svc_') && !TIMING_DEPENDENT.test(l))
      .map((l) => l.replace(/ [^ ]+$/, '')),
  );
}

/** One sample line: its metric name, labels and value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** One metric family: its TYPE, HELP and samples. */
export interface Family {
  type: string;
  help: string;
  samples: Sample[];
}

/** One label set of a histogram: its cumulative buckets (`le` as a number, +Inf last), sum and count. */
export interface HistogramSeries {
  labels: Record<string, string>;
  buckets: [le: number, count: number][];
  sum: number;
  count: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
/** Go's strconv.ParseFloat, which Prometheus reads values with: a number, or Inf / NaN in any case. */
const FLOAT = /^([+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?inf|nan)$/i;

/**
 * Parses the text exposition format 0.0.4 (prometheus.io "Exposition formats") and throws, naming
 * the line, on anything Prometheus would refuse: a malformed line, a sample before its family's
 * TYPE or apart from its other samples, a label repeated; for histograms, buckets whose `le` do
 * not rise to +Inf, cumulative counts that fall, or a +Inf bucket that differs from `_count`.
 */
export function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  if (!text.endsWith('\n')) throw new Error('the exposition does not end with a line feed');
  const lines = text.slice(0, -1).split('\n');
  let current: string | null = null;
  lines.forEach((line, i) => {
    const fail = (why: string): never => {
      throw new Error(`line ${i + 1}: ${why}: ${line}`);
    };
    if (line === '') return;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!m) return; // any other comment is allowed
      const [, kind, name, rest] = m as unknown as [string, string, string, string];
      if (!NAME.test(name)) fail('a malformed metric name');
      const family = families.get(name) ?? { type: 'untyped', help: '', samples: [] };
      if (family.samples.length) fail(`${kind} after the samples of ${name}`);
      if (kind === 'TYPE') {
        if (!TYPES.has(rest)) fail('an unknown type');
        family.type = rest;
      } else family.help = rest;
      families.set(name, family);
      current = name;
      return;
    }
    const sample = parseSample(line, fail);
    const family = familyOf(sample.name, families);
    if (!family || current === null || families.get(current) !== family) fail('a sample outside its family');
    family!.samples.push(sample);
  });
  for (const [name, family] of families) if (family.type === 'histogram') histogramSeries(families, name);
  return families;
}

function parseSample(line: string, fail: (why: string) => never): Sample {
  const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( -?\d+)?$/.exec(line);
  if (!m) return fail('a malformed sample');
  const [, name, , body, value] = m as unknown as [string, string, string | undefined, string | undefined, string];
  if (!FLOAT.test(value)) fail('a value that is not a float');
  const labels: Record<string, string> = {};
  let rest = body ?? '';
  while (rest !== '') {
    const l = /^([^=]+)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/.exec(rest);
    if (!l) return fail('malformed labels');
    const [whole, label, escaped] = l as unknown as [string, string, string];
    if (!LABEL.test(label) || label.startsWith('__')) fail(`a malformed label name ${label}`);
    if (label in labels) fail(`the label ${label} twice`);
    labels[label] = escaped.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(whole.length);
  }
  return { name, labels, value: /^[+-]?inf$/i.test(value) ? (value.startsWith('-') ? -Infinity : Infinity) : Number(value) };
}

/** The family a sample belongs to: its own name, or a histogram's or summary's of its suffix. */
function familyOf(name: string, families: Map<string, Family>): Family | undefined {
  const own = families.get(name);
  if (own) return own;
  const m = /^(.*)_(bucket|sum|count)$/.exec(name);
  const base = m ? families.get(m[1]!) : undefined;
  if (base && (base.type === 'histogram' || (base.type === 'summary' && m![2] !== 'bucket'))) return base;
  return undefined;
}

/** The label sets of histogram `name` in a parsed exposition, checked as parseExposition says. */
export function histogramSeries(families: Map<string, Family>, name: string): HistogramSeries[] {
  const family = families.get(name);
  if (!family || family.type !== 'histogram') throw new Error(`no histogram ${name}`);
  const series = new Map<string, HistogramSeries>();
  for (const s of family.samples) {
    const { le, ...labels } = s.labels;
    const key = JSON.stringify(Object.entries(labels).sort());
    const one = series.get(key) ?? { labels, buckets: [], sum: NaN, count: NaN };
    series.set(key, one);
    if (s.name === `${name}_bucket`) {
      if (le === undefined || !FLOAT.test(le)) throw new Error(`${name}: a bucket without a numeric le: ${key}`);
      one.buckets.push([/^\+?inf$/i.test(le) ? Infinity : Number(le), s.value]);
    } else if (le !== undefined) throw new Error(`${s.name} has an le label`);
    else if (s.name === `${name}_sum`) one.sum = s.value;
    else if (s.name === `${name}_count`) one.count = s.value;
    else throw new Error(`${s.name} is not a histogram's sample`);
  }
  for (const [key, one] of series) {
    const les = one.buckets.map(([le]) => le);
    if (les.at(-1) !== Infinity) throw new Error(`${name} ${key}: no +Inf bucket`);
    for (let i = 1; i < one.buckets.length; i++) {
      if (!(les[i]! > les[i - 1]!)) throw new Error(`${name} ${key}: le does not rise at ${les[i]}`);
      if (one.buckets[i]![1] < one.buckets[i - 1]![1]) throw new Error(`${name} ${key}: the count falls at le=${les[i]}`);
    }
    if (one.buckets.at(-1)![1] !== one.count) throw new Error(`${name} ${key}: +Inf ${one.buckets.at(-1)![1]} is not _count ${one.count}`);
    if (Number.isNaN(one.sum)) throw new Error(`${name} ${key}: no _sum`);
  }
  return [...series.values()];
}
