/**
 * `pnpm bench:search` (also run by `pnpm bench`): search and ingestion at scale
 * (docs/benchmarks.md "Search and ingestion at scale").
 * - The index alone, in this process: load time and MB/s of text, heap per character after full
 *   collections, and in-process search latency, for 10,000 and 100,000 sections.
 * - Through the gateway (a child process): tools/call svc_search, keyword and hybrid, on 1,000,
 *   10,000 and 100,000 sections: requests/s, p50, p99.
 * - Ingestion: svc_upload_document through the gateway in MB/s of text, and another workspace's
 *   svc_help p50/p99 at a steady rate during it, beside the same without ingestion.
 * Run with --expose-gc (the package script does).
 *   BENCH_SECONDS (default 8), BENCH_SEARCH_CONNECTIONS (default 4), BENCH_OTHER_RATE (req/s, default 200),
 *   BENCH_SEARCH_GATEWAY=0 (the index alone: no gateway rows, no ingestion)
 */
import autocannon from 'autocannon';
import { waitFor } from '@svc/testkit';
import { createKnowledge } from '../packages/knowledge/src/index.ts';
import { settledHeapBytes } from './search-memory.ts';
import { benchSearchCorpus } from './search.ts';
import { SCALE_QUERY, seed100k, seed10k, type ScaleCorpus } from './search-scale-corpus.ts';
import { ingestionDocuments, runIngestion } from './search-ingest.ts';
import { benchStack, child, stop, waitHttp } from './stack.ts';

const seconds = Number(process.env['BENCH_SECONDS'] ?? 8);
const connections = Number(process.env['BENCH_SEARCH_CONNECTIONS'] ?? 4);
const otherRate = Number(process.env['BENCH_OTHER_RATE'] ?? 200);
const started = Date.now();
const out = (line: string) => process.stdout.write(`${line}\n`);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc (pnpm bench:search)');

const { redis, base, env, client, accounts, workspace } = await benchStack('scale');
const key = async (project: string, level: 'VIEWER' | 'EDITOR' = 'VIEWER', ws = workspace) => {
  await accounts.workspaces.createProject({ slug: project, workspace: ws }).catch(() => undefined);
  return (await accounts.keys.createProjectKey({ project, workspace: ws, level, name: 'bench' })).key;
};

out('seeding 1,000, 10,000 and 100,000 sections');
const small = await benchSearchCorpus(client, 'scale-1k');
const corpora: ScaleCorpus[] = [await seed10k(client, 'scale-10k'), await seed100k(client, 'scale-100k')];
for (const c of corpora)
  out(`  ${c.project}: ${c.sections} sections, ${(c.chars / 1e6).toFixed(1)} MB of text, seeded in ${c.seedSeconds.toFixed(1)} s`);

/** Sorted sample's quantile. */
const q = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number;

out('\nthe index alone (this process)');
const direct: string[] = [];
for (const c of corpora) {
  const reader = createKnowledge(client);
  const before = await settledHeapBytes(gc);
  const cpu0 = process.cpuUsage();
  const t = performance.now();
  await reader.search.size(c.project);
  const wall = (performance.now() - t) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const bytes = (await settledHeapBytes(gc)) - before;
  const lat: Record<string, string> = {};
  for (const mode of ['keyword', 'hybrid'] as const) {
    const n = c.sections > 50_000 ? 60 : 200;
    const times: number[] = [];
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await reader.search.search(c.project, SCALE_QUERY, mode, 10);
      times.push(performance.now() - t0);
    }
    const used = process.cpuUsage(c0);
    times.sort((a, b) => a - b);
    // CPU time per search too: on a shared machine wall time includes waiting for a core.
    lat[mode] = `${q(times, 0.5).toFixed(1)} / ${q(times, 0.99).toFixed(1)} (${((used.user + used.system) / 1000 / n).toFixed(1)} CPU)`;
  }
  direct.push(
    `| ${c.sections.toLocaleString('en')} | ${(c.chars / 1e6).toFixed(1)} | ${wall.toFixed(2)} s (${((cpu.user + cpu.system) / 1e6).toFixed(2)} s CPU) | ` +
      `${(c.chars / 1e6 / wall).toFixed(1)} | ${(bytes / 1e6).toFixed(0)} MB = ${(bytes / c.chars).toFixed(1)} B/char | ` +
      `${(reader.search.cachedBytes() / bytes).toFixed(2)} | ${lat['keyword']} | ${lat['hybrid']} |`,
  );
  out(direct.at(-1) as string);
}

if (process.env['BENCH_SEARCH_GATEWAY'] === '0') {
  client.disconnect();
  await redis.stop();
  process.exit(0);
}
const gw = child(['services/mcp-gateway/src/main.ts'], env);
await waitHttp(`${base}/healthz`);

interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}
const options = (
  project: string,
  tool: string,
  args: object,
  apiKey: string,
  more: Partial<autocannon.Options> = {},
): autocannon.Options => ({
  url: `${base}/mcp/${project}`,
  method: 'POST',
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } }),
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': apiKey },
  connections,
  duration: seconds,
  pipelining: 1,
  ...more,
});
const post = (...a: Parameters<typeof options>) => autocannon(options(...a));
/** One svc_search call; true when it answered an error (over the tool's time budget while the index loads). */
async function searchOnce(project: string, args: object, apiKey: string): Promise<boolean> {
  const res = await fetch(`${base}/mcp/${project}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': apiKey },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_search', arguments: args } }),
  });
  const body = (await res.json()) as { result?: { isError?: boolean } };
  return res.status !== 200 || !body.result || body.result.isError === true;
}
const row = (name: string, r: autocannon.Result): Row => ({
  name,
  rps: r.requests.average,
  p50: r.latency.p50,
  p99: r.latency.p99,
  non2xx: r.non2xx + r.errors + r.timeouts,
});

out(`\nthrough the gateway: ${seconds} s a row, ${connections} connections`);
const rows: Row[] = [];
for (const [project, sections] of [['scale-1k', small.sections], ...corpora.map((c) => [c.project, c.sections] as const)] as const) {
  const apiKey = await key(project);
  for (const mode of ['keyword', 'hybrid']) {
    const args = { query: SCALE_QUERY, mode, limit: 10 };
    // The first searches load the replica's index (100,000 sections: seconds of CPU, in slices,
    // past the tool's time budget on a loaded machine): asked again until one answers with hits.
    await waitFor(async () => !(await searchOnce(project, args, apiKey)), {
      timeout: 300_000,
      interval: 1000,
      message: `the ${project} index to load`,
    });
    await post(project, 'svc_search', args, apiKey, { duration: 2 });
    rows.push(
      row(`gateway svc_search ${mode} (${sections.toLocaleString('en')} sections)`, await post(project, 'svc_search', args, apiKey)),
    );
    out(`  ${rows.at(-1)?.name}: ${rows.at(-1)?.rps.toFixed(0)} req/s`);
  }
}

out(`\ningestion through the gateway, another workspace's svc_help at ${otherRate} req/s`);
const other = await accounts.users.create({ emailVerified: true, email: 'other@example.com' });
const otherKey = await key('other', 'VIEWER', other.workspace);
const ingestKey = await key('ingest', 'EDITOR');
const help = (duration: number) => options('other', 'svc_help', {}, otherKey, { overallRate: otherRate, duration });
await autocannon(help(2));
const quiet = row('other tenant svc_help, no ingestion', await autocannon(help(seconds)));
const docs = ingestionDocuments();
const ingest = await runIngestion({ base, project: 'ingest', apiKey: ingestKey, docs, other: help(seconds) });
const busy = row('other tenant svc_help, during ingestion', ingest.other);

out(`\n${'case'.padEnd(52)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'errors'.padStart(7)}`);
for (const r of [...rows, quiet, busy])
  out(
    `${r.name.padEnd(52)} ${r.rps.toFixed(0).padStart(8)} ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)} ${String(r.non2xx).padStart(7)}`,
  );
out(
  `\ningestion: ${docs.length} documents, ${(ingest.chars / 1e6).toFixed(1)} MB, ${ingest.sections} sections in ${ingest.seconds.toFixed(1)} s = ` +
    `${(ingest.chars / 1e6 / ingest.seconds).toFixed(2)} MB/s through the gateway (${ingest.failed} failed${ingest.failed ? `, last: ${ingest.lastFailure}` : ''})`,
);
out(
  `uploadDocument in this process (seeding, 8 in flight): ${corpora.map((c) => `${(c.chars / 1e6 / c.seedSeconds).toFixed(2)} MB/s`).join(', ')}`,
);
out(
  '\n| Sections | MB of text | index load | MB/s | heap after GC | approximateBytes / heap | keyword p50 / p99 (mean CPU) ms | hybrid p50 / p99 (mean CPU) ms |',
);
for (const line of direct) out(line);
out(`\nwhole run: ${((Date.now() - started) / 1000).toFixed(0)} s`);

await stop(gw);
client.disconnect();
await redis.stop();
process.exit(0);
