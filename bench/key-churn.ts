/**
 * The verified-credential cache under many keys and key changes (docs/benchmarks.md "Key churn"),
 * run by `pnpm bench` after its other rows, or alone (`pnpm bench:churn`). 100,000 distinct project
 * keys, all used once to warm the cache; then the same load (a key at random per request) in three
 * phases: no invalidation, one revocation a second (a key the load was using, taken out of the load
 * as its client would stop using it), the two in alternating halves; and the whole cache emptied
 * every second, which is what every invalidation message did before it named what changed. Reports req/s, p50/p99, the cache hit rate
 * (the gateway's own counters) and each phase's ratios to the quiet one.
 *   BENCH_KEYS (default 100000), BENCH_SECONDS (default 8), BENCH_CONNECTIONS (default 50)
 */
import autocannon from 'autocannon';
import type { Accounts, Redis } from '@svc/accounts';
import { INVALIDATION_CHANNEL } from '@svc/accounts';
import { benchStack, child, stop, waitHttp } from './stack.ts';

export interface ChurnKeys {
  project: string;
  keys: string[];
  ids: string[];
  seconds: number;
}

/** Creates `n` project keys through @svc/accounts, 2,000 at a time (a client batching each turn's writes). */
export async function seedChurnKeys(accounts: Accounts, workspace: string, project: string, n: number): Promise<ChurnKeys> {
  const started = Date.now();
  await accounts.workspaces.createProject({ slug: project, workspace });
  const keys: string[] = [];
  const ids: string[] = [];
  for (let i = 0; i < n; i += 2000) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(2000, n - i) }, () =>
        accounts.keys.createProjectKey({ project, workspace, level: 'VIEWER', name: 'churn' }),
      ),
    );
    keys.push(...batch.map((k) => k.key));
    ids.push(...batch.map((k) => k.id));
  }
  return { project, keys, ids, seconds: (Date.now() - started) / 1000 };
}

export interface ChurnRow {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  hitRate: number;
  hits: number;
  lookups: number;
  non2xx: number;
  revoked: number;
  entries: number;
}

type Churn = 'none' | 'revoke' | 'clear-all';

export async function runKeyChurn(
  ctx: { base: string; accounts: Accounts; client: Redis },
  set: ChurnKeys,
  opts: { seconds: number; connections: number },
): Promise<{ warm: ChurnRow; quiet: ChurnRow; revoke: ChurnRow; clearAll: ChurnRow }> {
  const url = `${ctx.base}/mcp/${set.project}`;
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_help', arguments: {} } });
  // The load's key set; a revoked key leaves it (swap with the last, pop).
  const keys = [...set.keys];
  const ids = [...set.ids];
  const headers = (key: string) => ({ 'content-type': 'application/json', 'x-api-key': key });

  async function gauges() {
    const text = await (await fetch(`${ctx.base}/metrics`)).text();
    const n = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
    return {
      hit: n(/^svc_gateway_auth_cache_total\{result="hit"\} (\d+)/m),
      miss: n(/^svc_gateway_auth_cache_total\{result="miss"\} (\d+)/m),
      entries: n(/^svc_gateway_auth_cache_entries (\d+)/m),
    };
  }

  async function phase(name: string, churn: Churn, amount?: number, seconds = opts.seconds): Promise<ChurnRow> {
    const before = await gauges();
    let revoked = 0;
    let next = 0;
    const every = () => {
      if (churn === 'clear-all') return void ctx.client.publish(INVALIDATION_CHANNEL, 'clear-all');
      const i = Math.floor(Math.random() * keys.length);
      const id = ids[i]!;
      [keys[i], ids[i]] = [keys[keys.length - 1]!, ids[ids.length - 1]!];
      keys.pop();
      ids.pop();
      revoked++;
      void ctx.accounts.keys.revoke(id);
    };
    const timer = churn === 'none' ? null : setInterval(every, 1000);
    const r = await autocannon({
      url,
      method: 'POST',
      connections: opts.connections,
      ...(amount ? { amount } : { duration: seconds }),
      requests: [
        {
          setupRequest: (req) => ({
            ...req,
            body,
            // The warm-up walks every key once; the phases pick one at random.
            headers: headers(amount ? keys[next++ % keys.length]! : keys[Math.floor(Math.random() * keys.length)]!),
          }),
        },
      ],
    });
    if (timer) clearInterval(timer);
    const after = await gauges();
    const hits = after.hit - before.hit;
    const total = hits + after.miss - before.miss;
    return {
      name,
      rps: r.requests.average,
      p50: r.latency.p50,
      p99: r.latency.p99,
      hitRate: total ? hits / total : 0,
      hits,
      lookups: total,
      non2xx: r.non2xx,
      revoked,
      entries: after.entries,
    };
  }

  const warm = await phase(`warm-up: each of ${keys.length} keys once`, 'none', keys.length);
  // Unmeasured: the warm-up's last-used times are flushed (docs/benchmarks.md), its garbage collected.
  await phase('settle', 'none', undefined, 3);
  // Quiet and revoking halves in the order A B B A, so drift over the run (GC, the last-used flush
  // every 5 s) falls on both alike.
  const half = (churn: Churn) =>
    phase(churn === 'none' ? 'no invalidation' : 'one revocation a second (targeted)', churn, undefined, opts.seconds / 2);
  const [q1, r1, r2, q2] = [await half('none'), await half('revoke'), await half('revoke'), await half('none')];
  const quiet = combine(q1, q2);
  const revoke = combine(r1, r2);
  const clearAll = await phase('whole cache emptied a second (before)', 'clear-all');
  return { warm, quiet, revoke, clearAll };
}

/** Two halves of one phase as one row: requests/s and latencies averaged, counts added. */
function combine(a: ChurnRow, b: ChurnRow): ChurnRow {
  const mean = (x: number, y: number) => (x + y) / 2;
  return {
    name: a.name,
    rps: mean(a.rps, b.rps),
    p50: mean(a.p50, b.p50),
    p99: mean(a.p99, b.p99),
    hitRate: (a.hits + b.hits) / (a.lookups + b.lookups || 1),
    hits: a.hits + b.hits,
    lookups: a.lookups + b.lookups,
    non2xx: a.non2xx + b.non2xx,
    revoked: a.revoked + b.revoked,
    entries: b.entries,
  };
}

/** The churn table and its ratios to the quiet phase. */
export function printChurn(set: ChurnKeys, r: Awaited<ReturnType<typeof runKeyChurn>>): void {
  const out = (s: string) => process.stdout.write(s);
  out(`\nkey churn: ${set.keys.length} keys (created in ${set.seconds.toFixed(1)} s), a key at random per request\n`);
  out(
    `${'phase'.padEnd(42)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'hit rate'.padStart(9)} ${'non-2xx'.padStart(8)} ${'revoked'.padStart(8)} ${'entries'.padStart(8)}\n`,
  );
  for (const row of [r.warm, r.quiet, r.revoke, r.clearAll])
    out(
      `${row.name.padEnd(42)} ${row.rps.toFixed(0).padStart(8)} ${row.p50.toFixed(1).padStart(7)} ${row.p99.toFixed(1).padStart(7)} ${(row.hitRate * 100).toFixed(2).padStart(8)}% ${String(row.non2xx).padStart(8)} ${String(row.revoked).padStart(8)} ${String(row.entries).padStart(8)}\n`,
    );
  const ratios = (row: ChurnRow) =>
    `req/s ${(row.rps / r.quiet.rps).toFixed(2)}, p99 ${(row.p99 / r.quiet.p99).toFixed(2)}, hit rate ${(row.hitRate / r.quiet.hitRate).toFixed(3)}`;
  out(`ratio one revocation a second / no invalidation: ${ratios(r.revoke)}\n`);
  out(`ratio whole cache emptied a second / no invalidation: ${ratios(r.clearAll)}\n`);
}

if (import.meta.main) {
  const seconds = Number(process.env['BENCH_SECONDS'] ?? 8);
  const connections = Number(process.env['BENCH_CONNECTIONS'] ?? 50);
  const stack = await benchStack('bench');
  process.stdout.write(`creating ${process.env['BENCH_KEYS'] ?? 100_000} keys\n`);
  const set = await seedChurnKeys(stack.accounts, stack.workspace, 'churn', Number(process.env['BENCH_KEYS'] ?? 100_000));
  const gw = child(['services/mcp-gateway/src/main.ts'], stack.env);
  await waitHttp(`${stack.base}/healthz`);
  printChurn(set, await runKeyChurn(stack, set, { seconds, connections }));
  await stop(gw);
  stack.client.disconnect();
  await stack.redis.stop();
  process.exit(0);
}
