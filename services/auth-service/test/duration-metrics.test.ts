/**
 * The auth-service's duration histograms on /metrics (docs/operations.md "Reading the metrics"),
 * read from a started service after real requests and real webhook deliveries: one observation
 * per answer in its route class and status class, one per delivery attempt in its outcome (as
 * many as the delivery log holds), Redis commands under a closed set of names, an exposition
 * Prometheus parses, and labels that stay the same under hostile paths. Counts only: no timing
 * is asserted (docs/conventions.md "Tests").
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import {
  eventually,
  freePort,
  histogramSeries,
  outsideLoopBudget,
  parseExposition,
  startHttpReceiver,
  svcMetricSeries,
  type HttpReceiver,
} from '@svc/testkit';
import { HISTOGRAMS, OUTCOMES, REDIS_COMMANDS, ROUTE_CLASSES } from '@svc/telemetry';
import { WebhookStore } from '@svc/webhooks';
import { startAuth, type AuthFixture } from './support.ts';

let f: AuthFixture;
let ok: HttpReceiver;
let gone: HttpReceiver;
before(async () => {
  await outsideLoopBudget(async () => {
    f = await startAuth({ env: { WEBHOOK_ALLOWED_PRIVATE: '127.0.0.1/32' } });
    ok = await startHttpReceiver();
    gone = await startHttpReceiver();
  });
});
after(async () => {
  await f.close();
  await ok.close();
  await gone.close();
});

/** /metrics parsed; `reads` counts them (each is a `health` answer the next read shows). */
let reads = 0;
async function scrape() {
  const res = await fetch(`${f.url}/metrics`);
  assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  reads++;
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

const form = (body: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body,
  redirect: 'manual',
});

test('each answer is one observation of its route class and status class', async () => {
  const start = counts(await scrape(), HISTOGRAMS.request.name);
  const readsBefore = reads;
  const expect = async (path: string, status: number, init: RequestInit = { redirect: 'manual' }) => {
    const res = await fetch(`${f.url}${path}`, init);
    await res.arrayBuffer();
    assert.equal(res.status, status, path);
  };
  for (let i = 0; i < 3; i++) await expect('/.well-known/openid-configuration', 200);
  for (let i = 0; i < 2; i++) await expect('/api/oauth/token', 400, form('grant_type=nope'));
  await expect('/api/oauth/device/token', 400, form('grant_type=nope'));
  for (let i = 0; i < 2; i++) await expect('/signin', 200);
  for (let i = 0; i < 2; i++) await expect(`/no/such/${i}`, 404);
  await expect('/dashboard', 303);
  for (let i = 0; i < 2; i++) await expect('/healthz', 200);
  // An answer is counted when its last byte is handed to the socket: read again until all are.
  await eventually(
    async () => {
      const now = counts(await scrape(), HISTOGRAMS.request.name);
      const { ['health 2xx']: health, ...rest } = delta(now, start);
      assert.deepEqual(rest, { 'oauth 2xx': 3, 'oauth 4xx': 3, 'page 2xx': 2, 'page 4xx': 2, 'dashboard 3xx': 1 });
      // The two probes, and every read of /metrics but this one.
      assert.equal(health, 2 + reads - readsBefore);
    },
    { timeout: 5_000, message: 'every answer to be counted once' },
  );
});

test('each webhook delivery attempt is one observation of its outcome, as many as the delivery logs hold', async () => {
  gone.answers.push(...Array<number>(10).fill(410));
  const store = new WebhookStore(f.client, { pepper: f.config.keyPepper });
  const closed = `http://127.0.0.1:${await freePort()}/hook`;
  const endpoints = [
    { ws: 'metrics-ok', url: ok.url },
    { ws: 'metrics-gone', url: gone.url },
    { ws: 'metrics-down', url: closed },
  ];
  const made: { ws: string; id: string }[] = [];
  for (const { ws, url } of endpoints) {
    made.push({ ws, id: (await store.create(ws, { url, events: ['key.revoked'] }))!.endpoint.id });
    for (let i = 0; i < 3; i++)
      await f.accounts.audit.record({
        workspace: ws,
        actor: 'o@example.com',
        action: 'key.revoked',
        target: `key:k${i}`,
        source: 's',
        requestId: 'r',
      });
  }
  const outcomeOf = (status: number | null) => (status === null ? 'error' : `${Math.floor(status / 100)}xx`);
  await eventually(
    async () => {
      const logged = new Map<string, number>();
      for (const { ws, id } of made)
        for (const attempt of await store.deliveries(ws, id)) {
          const k = `webhook ${outcomeOf(attempt.status)}`;
          logged.set(k, (logged.get(k) ?? 0) + 1);
        }
      assert.equal(logged.get('webhook 2xx'), 3, 'three deliveries');
      assert.equal(logged.get('webhook 4xx'), 1, 'one 410, which disabled its endpoint');
      assert.ok((logged.get('webhook error') ?? 0) >= 1, 'an attempt on a closed port');
      assert.deepEqual(counts(await scrape(), HISTOGRAMS.outbound.name), logged);
    },
    { timeout: 15_000, message: 'the deliveries to be made and each timed once' },
  );
  assert.equal(ok.received.length, 3);
});

test('Redis commands are timed under names of the closed set', async () => {
  await fetch(`${f.url}/signin`, form('email=someone%40example.com&password=x'));
  const timed = counts(await scrape(), HISTOGRAMS.redisCommand.name);
  assert.ok(timed.size > 0);
  for (const [command, n] of timed) {
    assert.ok(command === 'other' || REDIS_COMMANDS.has(command), command);
    assert.ok(n > 0);
  }
});

/** A request of one of a fixed list of shapes, its path, client or form random. */
async function hostile(i: number): Promise<void> {
  const junk = (n: number) => encodeURIComponent(randomBytes(n).toString('latin1'));
  const word = () => randomBytes(5).toString('hex');
  const shapes: (() => Promise<Response>)[] = [
    () => fetch(`${f.url}/${junk(12)}/${word()}?client_id=${junk(8)}`),
    () => fetch(`${f.url}/api/oauth/${word()}/${junk(4)}`, form(`client_id=${word()}`)),
    () => fetch(`${f.url}/api/oauth/authorize?client_id=${word()}&response_type=code`, { redirect: 'manual' }),
    () => fetch(`${f.url}/.well-known/${word()}`),
    () => fetch(`${f.url}/interaction/${word()}`, { redirect: 'manual' }),
    () => fetch(`${f.url}/dashboard/${word()}/${junk(6)}`, { redirect: 'manual' }),
    () => fetch(`${f.url}/${word()}`, { method: 'DELETE' }),
  ];
  await (await shapes[i % shapes.length]!()).arrayBuffer();
}

test('200 hostile paths add no series; every label value is of its closed set', async () => {
  for (let i = 0; i < 200; i++) await hostile(i);
  const first = await svcMetricSeries(f.url);
  for (let i = 0; i < 200; i++) await hostile(i);
  const second = await svcMetricSeries(f.url);
  assert.deepEqual(
    [...second].filter((s) => !first.has(s)),
    [],
  );
  for (const s of histogramSeries(await scrape(), HISTOGRAMS.request.name)) {
    assert.ok((ROUTE_CLASSES as readonly string[]).includes(s.labels['route']!), s.labels['route']);
    assert.ok((OUTCOMES as readonly string[]).includes(s.labels['outcome']!), s.labels['outcome']);
  }
});
