/**
 * The duration histograms (docs/operations.md "Reading the metrics"): each observation is counted
 * in its bucket, the exposition is the text format Prometheus reads (cumulative buckets rising to
 * +Inf, equal to `_count`), and every label takes a closed set, whatever names it is handed.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { Histogram, Registry } from 'prom-client';
import { histogramSeries, parseExposition, type HistogramSeries } from '@svc/testkit';
import { durationHistograms, HISTOGRAMS, OUTCOMES, REDIS_COMMANDS, ROUTE_CLASSES } from '../src/index.ts';

async function read(registry: Registry, name: string): Promise<HistogramSeries[]> {
  return histogramSeries(parseExposition(await registry.metrics()), name);
}

const find = (series: HistogramSeries[], labels: Record<string, string>) =>
  series.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));

test('each table has bounds that rise, and label names of its own', () => {
  for (const spec of Object.values(HISTOGRAMS)) {
    assert.ok(spec.buckets.length > 0, spec.name);
    for (let i = 1; i < spec.buckets.length; i++) assert.ok(spec.buckets[i]! > spec.buckets[i - 1]!, `${spec.name} at ${i}`);
    assert.ok(!(spec.labelNames as readonly string[]).includes('le'), spec.name);
    assert.match(spec.name, /^svc_[a-z_]+_seconds$/);
  }
  // Normal answers take 0.5-50 ms: at least ten bounds there, so p50 and p99 read finely.
  assert.ok(HISTOGRAMS.request.buckets.filter((b) => b >= 0.0005 && b <= 0.05).length >= 10);
});

test('an observation counts in the first bucket whose bound is at least it; buckets are cumulative', async () => {
  const registry = new Registry();
  const d = durationHistograms(registry);
  d.request('mcp', 200, 0.001); // on a bound: that bucket
  d.request('mcp', 204, 0.0011); // just over: the next
  d.request('mcp', 200, 99); // over every bound: +Inf only
  d.request('mcp', 404, 0.02);
  d.request('rest', 503, 0.0001);
  const series = await read(registry, HISTOGRAMS.request.name);
  assert.equal(series.length, 3);
  const ok = find(series, { route: 'mcp', outcome: '2xx' })!;
  assert.equal(ok.count, 3);
  assert.ok(Math.abs(ok.sum - 99.0021) < 1e-9);
  const at = (s: HistogramSeries, le: number) => s.buckets.find(([b]) => b === le)![1];
  assert.equal(at(ok, 0.00075), 0);
  assert.equal(at(ok, 0.001), 1);
  assert.equal(at(ok, 0.0015), 2);
  assert.equal(at(ok, 5), 2);
  assert.equal(at(ok, Infinity), 3);
  assert.equal(ok.buckets.length, HISTOGRAMS.request.buckets.length + 1);
  assert.equal(find(series, { route: 'mcp', outcome: '4xx' })!.count, 1);
  assert.equal(at(find(series, { route: 'rest', outcome: '5xx' })!, 0.0005), 1);
});

test('outbound calls are told by kind and status class; no answer is `error`', async () => {
  const registry = new Registry();
  const d = durationHistograms(registry);
  d.outbound('webhook', 200, 0.03);
  d.outbound('webhook', 410, 0.03);
  d.outbound('webhook', null, 10);
  d.outbound('upstream', 302, 0.5);
  const series = await read(registry, HISTOGRAMS.outbound.name);
  assert.deepEqual(series.map((s) => `${s.labels['kind']} ${s.labels['outcome']} ${s.count}`).sort(), [
    'upstream 3xx 1',
    'webhook 2xx 1',
    'webhook 4xx 1',
    'webhook error 1',
  ]);
});

test('a Redis command outside the closed set is `other`, however many names come; a listed one in any case is its own', async () => {
  const registry = new Registry();
  const d = durationHistograms(registry);
  d.command('evalsha', 0.0004);
  d.command('GET', 0.0004);
  d.command('get', 0.0004);
  for (let i = 0; i < 200; i++) d.command(randomBytes(6).toString('hex'), 0.0004);
  d.command('flushall', 0.0004);
  const series = await read(registry, HISTOGRAMS.redisCommand.name);
  assert.deepEqual(series.map((s) => `${s.labels['command']} ${s.count}`).sort(), ['evalsha 1', 'get 2', 'other 201']);
  for (const s of series) assert.ok(s.labels['command'] === 'other' || REDIS_COMMANDS.has(s.labels['command']!));
});

test('every route class and outcome together stay one series each, and the text parses with the rest of a registry', async () => {
  const registry = new Registry();
  new Histogram({ name: 'prom_client_own', help: 'prom-client beside', labelNames: ['a'], registers: [registry] }).observe({ a: 'x' }, 1);
  const d = durationHistograms(registry);
  for (let round = 0; round < 3; round++)
    for (const route of ROUTE_CLASSES) for (const status of [200, 301, 404, 500, 599]) d.request(route, status, 0.004);
  const series = await read(registry, HISTOGRAMS.request.name);
  assert.equal(series.length, ROUTE_CLASSES.length * (OUTCOMES.length - 1));
  for (const s of series) assert.equal(s.count, s.labels['outcome'] === '5xx' ? 6 : 3);
  assert.equal(histogramSeries(parseExposition(await registry.metrics()), 'prom_client_own').length, 1);
});

test('the exposition parser refuses what Prometheus refuses', () => {
  const ok = '# HELP h x\n# TYPE h histogram\nh_bucket{le="1"} 1\nh_bucket{le="+Inf"} 2\nh_sum 3\nh_count 2\n';
  assert.equal(parseExposition(ok).get('h')!.samples.length, 4);
  const bad = [
    ok.replace('h_count 2', 'h_count 3'), // +Inf is not _count
    ok.replace('le="1"} 1', 'le="1"} 3'), // a cumulative count falls
    ok.replace('le="+Inf"', 'le="0.5"'), // no +Inf, le falls
    ok.replace('h_sum 3', 'h_sum three'),
    ok.replace('{le="1"}', '{le="1",le="2"}'),
    ok.replace('{le="1"}', '{le=1}'),
    ok.slice(0, -1),
    `${ok}other 1\n`, // a sample of no family
  ];
  for (const text of bad) assert.throws(() => parseExposition(text), Error, text);
});
