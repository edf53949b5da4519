/**
 * The baselines `pnpm bench` measures the gateway against (docs/benchmarks.md) answer as the bench
 * expects: the bare server, the floor on the gateway's own admit script (a change of the script's
 * layout that the floor does not follow makes every floor answer a 503, and the bench stops), and
 * the floor with a local limiter. Each is started as the bench starts it and sent the bench's
 * request; the shared floor's counters in Redis must hold exactly the requests it answered.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { K, WINDOWS } from '@svc/accounts';
import { freePort, startRedis, waitFor, type RedisFixture } from '@svc/testkit';

const ROOT = resolve(import.meta.dirname, '../..');
const REQUESTS = 5;
const BODY = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'svc_help', arguments: {} } });

let redis: RedisFixture;
const stops: (() => void)[] = [];
before(async () => {
  redis = await startRedis();
});
after(async () => {
  for (const stop of stops) stop();
  await redis.stop();
});

const BASELINES = [
  { name: 'bare server', file: 'bench/bare-server.ts', env: {}, counts: false },
  { name: 'floor, shared limiter', file: 'bench/floor-server.ts', env: { FLOOR_LIMITER: 'shared' }, counts: true },
  { name: 'floor, local limiter', file: 'bench/floor-server.ts', env: { FLOOR_LIMITER: 'local' }, counts: false },
];

for (const baseline of BASELINES)
  test(`the bench's ${baseline.name} answers its requests with 200`, async () => {
    await redis.flush();
    const port = await freePort();
    const child = spawn(resolve(ROOT, 'scripts/node'), [baseline.file, '600', String(port)], {
      cwd: ROOT,
      env: { ...process.env, REDIS_URL: redis.url, ...baseline.env },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    stops.push(() => child.kill('SIGKILL'));
    const url = `http://127.0.0.1:${port}/`;
    await waitFor(async () => (await fetch(url).catch(() => null)) !== null, { timeout: 20_000, message: `${baseline.file} to listen` });
    const minute = WINDOWS.minute(Date.now());
    for (let i = 0; i < REQUESTS; i++) {
      const res = await fetch(url, {
        method: 'POST',
        body: BODY,
        headers: { 'content-type': 'application/json', 'x-api-key': 'svc_bench' },
      });
      assert.equal(res.status, 200, `${baseline.name}: request ${i + 1}`);
      assert.equal(((await res.json()) as { jsonrpc: string }).jsonrpc, '2.0');
    }
    if (baseline.counts) {
      // Every answer was counted by the admit script, in the plan's minute and the caller's tool
      // budget (in the minute it started in, and the next if the run crossed an edge).
      const minutes = [minute, WINDOWS.minute(Date.now())].filter((m, i, all) => all.indexOf(m) === i);
      const sum = async (key: (m: number) => string) => {
        let n = 0;
        for (const m of minutes) n += Number(await redis.client.get(key(m)));
        return n;
      };
      assert.equal(await sum((m) => K.rateMinute('bench-floor', m)), REQUESTS);
      assert.equal(await sum((m) => K.rateAgentMinute('bench-floor', 't:k-floor', m)), REQUESTS);
    }
    child.kill('SIGTERM');
  });
