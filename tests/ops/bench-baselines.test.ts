/**
 * The baselines `pnpm bench` measures the gateway against (docs/benchmarks.md) answer as the bench
 * expects: the bare server, the floor on the gateway's own admit script (a change of the script's
 * layout that the floor does not follow makes every floor answer a 503, and the bench stops), and
 * the floor with a local limiter. Each is started as the bench starts it and sent the bench's
 * request; the shared floor's counters in Redis must hold exactly the requests it answered. The
 * baselines of `pnpm bench:auth`'s refresh case (oidc-provider alone, its records in a Map or in
 * Redis) rotate a family's refresh token as the auth-service does, and refuse a rotated token; the
 * one on Redis keeps its records there.
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

for (const store of ['map', 'redis'] as const)
  test(`the bench's oidc-provider alone (records in ${store}) rotates a refresh token on every grant`, async () => {
    const auth = `http://127.0.0.1:${await freePort()}`;
    const child = spawn(resolve(ROOT, 'scripts/node'), ['bench/provider-alone-server.ts'], {
      cwd: ROOT,
      env: { ...process.env, AUTH_URL: auth, ALONE_STORE: store, REDIS_URL: redis.url },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    stops.push(() => child.kill('SIGKILL'));
    const replies = new Map<number, (reply: { value?: unknown; error?: string }) => void>();
    child.on('message', (m: { id: number; value?: unknown; error?: string }) => replies.get(m.id)?.(m));
    const reply = (id: number) => new Promise<{ value?: unknown; error?: string }>((done) => replies.set(id, done));
    await reply(0);
    const seeded = reply(1);
    child.send({ id: 1, op: 'refresh', n: 1, accountId: 'person', resource: 'http://127.0.0.1:9/mcp/bench' });
    const { value, error } = await seeded;
    assert.equal(error, undefined);
    let token = (value as string[])[0]!;
    let previous = token;
    const refresh = (refreshToken: string) =>
      fetch(`${auth}/api/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', client_id: 'svc-mcp', refresh_token: refreshToken }),
      });
    for (let i = 0; i < REQUESTS; i++) {
      const res = await refresh(token);
      const body = (await res.json()) as { access_token?: string; refresh_token?: string };
      assert.equal(res.status, 200, `grant ${i + 1}: ${JSON.stringify(body)}`);
      assert.equal(typeof body.access_token, 'string');
      assert.notEqual(body.refresh_token, token, 'the refresh token rotated');
      previous = token;
      token = body.refresh_token!;
    }
    // Every token of the family, before the reuse below revokes the grant (and deletes them).
    const stored = await redis.client.keys('bench-alone:RefreshToken:*');
    assert.equal(stored.length, store === 'redis' ? REQUESTS + 1 : 0, 'the records are where the store says');
    const reused = await refresh(previous);
    assert.equal(reused.status, 400, 'a rotated token is refused');
    assert.equal(((await reused.json()) as { error?: string }).error, 'invalid_grant');
    child.kill('SIGTERM');
  });
