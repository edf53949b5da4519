/**
 * The gateway's duration histograms on /metrics (docs/operations.md "Reading the metrics"), read
 * from a started gateway after real requests: one observation per answer in its route class and
 * status class, one per Redis command of the request connection, an exposition Prometheus
 * parses, and labels that stay the same closed sets under hostile paths and tool names. Counts
 * only: no timing is asserted (docs/conventions.md "Tests").
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { eventually, histogramSeries, parseExposition, svcMetricSeries } from '@svc/testkit';
import { HISTOGRAMS, OUTCOMES, REDIS_COMMANDS, ROUTE_CLASSES } from '@svc/telemetry';
import { call, post, rpc, seed, startFixture, type GatewayFixture, type Seeded } from './support.ts';

let f: GatewayFixture;
let t: Seeded;
before(async () => {
  f = await startFixture();
  t = await seed(f.accounts, { plan: 'ENTERPRISE' });
});
after(() => f.close());

async function scrape() {
  const res = await fetch(`${f.url}/metrics`);
  assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  return parseExposition(await res.text());
}

/** The count of each label set of histogram `name`, keyed by its label values joined by a space. */
function counts(families: Awaited<ReturnType<typeof scrape>>, name: string): Map<string, number> {
  if (!families.has(name)) return new Map();
  return new Map(histogramSeries(families, name).map((s) => [Object.values(s.labels).join(' '), s.count]));
}

function delta(after: Map<string, number>, before: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, n] of after) if (n !== (before.get(k) ?? 0)) out[k] = n - (before.get(k) ?? 0);
  return out;
}

const scalar = (families: Awaited<ReturnType<typeof scrape>>, name: string) => families.get(name)?.samples[0]?.value ?? 0;

test('each answer is one observation of its route class and status class', async () => {
  const key = { 'X-API-Key': t.key };
  const start = counts(await scrape(), HISTOGRAMS.request.name);
  for (let i = 0; i < 7; i++) assert.equal((await post(f.url, `/mcp/${t.project}`, call('svc_help'), key)).status, 200);
  for (let i = 0; i < 3; i++) assert.equal((await post(f.url, `/mcp/${t.project}`, call('svc_help'))).status, 401);
  for (let i = 0; i < 4; i++) assert.equal((await post(f.url, `/api/v1/projects/${t.project}/tools/svc_help`, {}, key)).status, 200);
  assert.equal((await fetch(`${f.url}/api/v1/me`, { headers: key })).status, 200);
  for (let i = 0; i < 2; i++) assert.equal((await fetch(`${f.url}/no/such/${i}`)).status, 404);
  for (let i = 0; i < 2; i++) assert.equal((await fetch(`${f.url}/healthz`)).status, 200);
  const end = counts(await scrape(), HISTOGRAMS.request.name);
  // The first read of /metrics is counted once answered, before the second one's text.
  assert.deepEqual(delta(end, start), { 'mcp 2xx': 7, 'mcp 4xx': 3, 'rest 2xx': 5, 'other 4xx': 2, 'health 2xx': 3 });
});

test('each command of the request connection is one observation, as many as svc_gateway_redis_commands_total counts', async () => {
  const before = await scrape();
  const first = counts(before, HISTOGRAMS.redisCommand.name);
  // A workspace's first request in a turn is admitted by one script (docs/gateway-pipeline.md).
  const other = await seed(f.accounts, { plan: 'ENTERPRISE' });
  assert.equal((await post(f.url, `/mcp/${other.project}`, call('svc_help'), { 'X-API-Key': other.key })).status, 200);
  await eventually(
    async () => {
      const now = await scrape();
      const timed = counts(now, HISTOGRAMS.redisCommand.name);
      const sent = scalar(now, 'svc_gateway_redis_commands_total');
      const total = [...timed.values()].reduce((a, b) => a + b, 0);
      assert.equal(total, sent, 'every command sent is timed once');
      assert.ok((timed.get('evalsha') ?? 0) > (first.get('evalsha') ?? 0), 'the admission script is timed as evalsha');
      for (const command of timed.keys()) assert.ok(command === 'other' || REDIS_COMMANDS.has(command), command);
    },
    { timeout: 5_000, message: 'the timed commands to match the commands sent' },
  );
});

/** A request of one of a fixed list of shapes, its path, slug, tool or method name random. */
async function hostile(i: number): Promise<void> {
  const junk = (n: number) => encodeURIComponent(randomBytes(n).toString('latin1'));
  const word = () => randomBytes(5).toString('hex');
  const key = { 'X-API-Key': t.key };
  const shapes: (() => Promise<unknown>)[] = [
    () => fetch(`${f.url}/${junk(12)}/${word()}?q=${junk(8)}`),
    () => fetch(`${f.url}/mcp/${word()}/${junk(4)}`, { method: 'DELETE' }),
    () => post(f.url, `/mcp/${word()}`, call('svc_help'), key),
    () => post(f.url, `/mcp/${t.project}`, call(`svc_${word()}`), key),
    () => post(f.url, `/mcp/${t.project}`, rpc(`${word()}/${word()}`), key),
    () => post(f.url, `/api/v1/projects/${t.project}/tools/${junk(6)}`, {}, key),
    () => post(f.url, `/api/v1/projects/${word()}/tools/${word()}`, {}, key),
    () => fetch(`${f.url}/api/v1/${word()}`, { method: 'PATCH', headers: key }),
  ];
  await shapes[i % shapes.length]!();
}

test('200 hostile paths, slugs and tool names add no series; every label value is of its closed set', async () => {
  for (let i = 0; i < 200; i++) await hostile(i);
  const first = await svcMetricSeries(f.url);
  for (let i = 0; i < 200; i++) await hostile(i);
  const second = await svcMetricSeries(f.url);
  assert.deepEqual(
    [...second].filter((s) => !first.has(s)),
    [],
  );
  const families = await scrape();
  for (const s of histogramSeries(families, HISTOGRAMS.request.name)) {
    assert.ok((ROUTE_CLASSES as readonly string[]).includes(s.labels['route']!), s.labels['route']);
    assert.ok((OUTCOMES as readonly string[]).includes(s.labels['outcome']!), s.labels['outcome']);
  }
  // The whole exposition names nothing a caller sent.
  const text = await (await fetch(`${f.url}/metrics`)).text();
  assert.doesNotMatch(text, new RegExp(`${t.project}|svc_[0-9a-f]{10}`));
});
