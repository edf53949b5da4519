/**
 * `pnpm bench:churn`: the verified-credential cache under many keys and key changes
 * (docs/benchmarks.md "Key churn"). 100,000 distinct project keys; the load picks one at random per
 * request (so most lookups start cold, then the working set warms); the same load is measured
 * without and with one revocation a second (of keys outside the load's set, so every answer stays
 * 200 and the difference is the invalidation's cost). Reports req/s, p99 and the cache hit rate.
 *   BENCH_KEYS (default 100000), BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 50)
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import autocannon from 'autocannon';
import { INVALIDATION_CHANNEL } from '@svc/accounts';
import { waitFor } from '@svc/testkit';
import { benchStack } from './stack.ts';

const root = resolve(import.meta.dirname, '..');
const KEYS = Number(process.env['BENCH_KEYS'] ?? 100_000);
const seconds = Number(process.env['BENCH_SECONDS'] ?? 10);
const connections = Number(process.env['BENCH_CONNECTIONS'] ?? 50);

const { redis, base, env, client, accounts, workspace } = await benchStack('churn');
const user = { workspace };

process.stdout.write(`creating ${KEYS} keys and ${seconds * 2 + 10} spares to revoke\n`);
const started = Date.now();
const keys: string[] = [];
const spares: string[] = [];
const issue = () => accounts.keys.createProjectKey({ project: 'churn', workspace: user.workspace, level: 'VIEWER', name: 'churn' });
for (let i = 0; i < KEYS; i += 1000)
  keys.push(...(await Promise.all(Array.from({ length: Math.min(1000, KEYS - i) }, issue))).map((k) => k.key));
for (let i = 0; i < seconds * 2 + 10; i++) spares.push((await issue()).id);
process.stdout.write(`  ${((Date.now() - started) / 1000).toFixed(1)} s\n`);

const gw = spawn(process.execPath, ['services/mcp-gateway/src/main.ts'], { cwd: root, env: { ...process.env, ...env }, stdio: 'inherit' });
await waitFor(async () => (await fetch(`${base}/readyz`)).ok, { timeout: 20_000, message: 'the gateway to be ready' });

const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_help', arguments: {} } });
async function cacheCounts(): Promise<{ hit: number; miss: number }> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const n = (label: string) => Number(new RegExp(`^svc_gateway_auth_cache_total\\{result="${label}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { hit: n('hit'), miss: n('miss') };
}

type Churn = 'none' | 'revoke' | 'clear-all';
async function run(name: string, churn: Churn) {
  const before = await cacheCounts();
  let revoked = 0;
  const every = () =>
    churn === 'revoke'
      ? void accounts.keys.revoke(spares[revoked++]!)
      : // What every message did before targeted invalidation: empty the whole cache.
        void client.publish(INVALIDATION_CHANNEL, 'clear-all');
  const timer = churn === 'none' ? null : setInterval(every, 1000);
  const r = await autocannon({
    url: `${base}/mcp/churn`,
    method: 'POST',
    connections,
    duration: seconds,
    requests: [
      {
        setupRequest: (req) => ({
          ...req,
          body,
          headers: { 'content-type': 'application/json', 'x-api-key': keys[Math.floor(Math.random() * keys.length)]! },
        }),
      },
    ],
  });
  if (timer) clearInterval(timer);
  const after = await cacheCounts();
  const hits = after.hit - before.hit;
  const total = hits + after.miss - before.miss;
  return { name, rps: r.requests.average, p99: r.latency.p99, non2xx: r.non2xx, hitRate: total ? hits / total : 0, revoked };
}

await run('warm-up', 'none');
const quiet = await run('no revocations', 'none');
const churn = await run('one revocation a second', 'revoke');
const cliff = await run('whole cache emptied a second', 'clear-all');
process.stdout.write(
  `\n${'case'.padEnd(28)} ${'req/s'.padStart(8)} ${'p99 ms'.padStart(7)} ${'hit rate'.padStart(9)} ${'non-2xx'.padStart(8)} revoked\n`,
);
for (const r of [quiet, churn, cliff])
  process.stdout.write(
    `${r.name.padEnd(28)} ${r.rps.toFixed(0).padStart(8)} ${String(r.p99).padStart(7)} ${(r.hitRate * 100).toFixed(1).padStart(8)}% ${String(r.non2xx).padStart(8)} ${r.revoked}\n`,
  );
process.stdout.write(`\nratio req/s with revocations / without: ${(churn.rps / quiet.rps).toFixed(2)}\n`);
process.stdout.write(`ratio req/s emptying the whole cache each second / without: ${(cliff.rps / quiet.rps).toFixed(2)}\n`);

await new Promise((done) => (gw.once('exit', done), gw.kill('SIGTERM')));
client.disconnect();
await redis.stop();
process.exit(0);
