/**
 * `pnpm soak`: the gateway under steady load for a long time (docs/benchmarks.md "Soak"). First
 * finds what the gateway sustains on this machine (a short burst at full load), then holds half of
 * that for SOAK_MINUTES, one minute at a time, and reads after each minute the gateway's resident
 * set, heap and p99. The load is a mix a real tenant sends: tool calls and tool lists in both MCP
 * revisions, from 1,000 distinct keys (so the credential cache holds many entries), and a REST
 * call. Prints one row per minute, the p99 drift (last minute / first minute) and whether the
 * resident set levelled off: over the second half it grew less than SOAK_RSS_SLACK_MB.
 *   SOAK_MINUTES (default 10), SOAK_CONNECTIONS (default 20), SOAK_RSS_SLACK_MB (default 8)
 */
import autocannon from 'autocannon';
import { benchStack, child, stop } from './stack.ts';
import { waitFor } from '@svc/testkit';

const minutes = Number(process.env['SOAK_MINUTES'] ?? 10);
const connections = Number(process.env['SOAK_CONNECTIONS'] ?? 20);
const slackMb = Number(process.env['SOAK_RSS_SLACK_MB'] ?? 8);
const out = (line: string) => process.stdout.write(`${line}\n`);
const MB = 1024 * 1024;

const { redis, base, env, client, accounts, workspace } = await benchStack('soak');
const keys = await Promise.all(
  Array.from(
    { length: 1000 },
    async (_, i) => (await accounts.keys.createProjectKey({ project: 'soak', workspace, level: 'EDITOR', name: `k${i}` })).key,
  ),
);
const gw = child(['services/mcp-gateway/src/main.ts'], env);
await waitFor(async () => (await fetch(`${base}/readyz`)).ok, { timeout: 20_000, message: 'the gateway to be ready' });

const V = '2026-07-28';
const meta = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientInfo': { name: 'soak', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const mix: { path: string; body: string; headers: Record<string, string> }[] = [
  { path: '/mcp/soak', body: rpc('tools/call', { name: 'svc_help', arguments: {} }), headers: {} },
  { path: '/mcp/soak', body: rpc('tools/list', {}), headers: {} },
  {
    path: '/mcp/soak',
    body: rpc('tools/call', { name: 'svc_help', arguments: {}, _meta: meta }),
    headers: { 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': 'svc_help' },
  },
  { path: '/mcp/soak', body: rpc('tools/list', { _meta: meta }), headers: { 'mcp-protocol-version': V, 'mcp-method': 'tools/list' } },
  { path: '/api/v1/projects/soak/tools/svc_help', body: '{}', headers: {} },
];

function rpc(method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
}

async function load(seconds: number, overallRate?: number) {
  let n = 0;
  return autocannon({
    url: base,
    method: 'POST',
    connections,
    duration: seconds,
    ...(overallRate ? { overallRate } : {}),
    requests: [
      {
        setupRequest: (req) => {
          const m = mix[n++ % mix.length]!;
          const key = keys[Math.floor(Math.random() * keys.length)]!;
          return {
            ...req,
            path: m.path,
            body: m.body,
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key, ...m.headers },
          };
        },
      },
    ],
  });
}

async function memory(): Promise<{ rss: number; heap: number }> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const n = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN);
  return { rss: n(/^process_resident_memory_bytes (\S+)/m), heap: n(/^nodejs_heap_size_used_bytes (\S+)/m) };
}

// A failed soak must not leave its gateway running.
process.on('exit', () => gw.kill('SIGKILL'));
out('finding full capacity (10 s at full load)');
const full = await load(10);
if (full.non2xx > 0) throw new Error(`the soak mix got ${full.non2xx} non-2xx answers at full load`);
const rate = Math.max(1, Math.round(full.requests.average / 2));
out(`  ${full.requests.average.toFixed(0)} req/s; soaking at ${rate} req/s (half) for ${minutes} min with ${connections} connections`);

interface Minute {
  minute: number;
  rps: number;
  p99: number;
  rss: number;
  heap: number;
  errors: number;
}
const rows: Minute[] = [];
const start = await memory();
out(
  `\n${'minute'.padStart(6)} ${'req/s'.padStart(7)} ${'p99 ms'.padStart(7)} ${'RSS MB'.padStart(7)} ${'heap MB'.padStart(8)} ${'non-2xx'.padStart(8)}`,
);
out(
  `${'0'.padStart(6)} ${''.padStart(7)} ${''.padStart(7)} ${(start.rss / MB).toFixed(1).padStart(7)} ${(start.heap / MB).toFixed(1).padStart(8)}`,
);
for (let m = 1; m <= minutes; m++) {
  const r = await load(60, rate);
  const mem = await memory();
  const row = { minute: m, rps: r.requests.average, p99: r.latency.p99, rss: mem.rss, heap: mem.heap, errors: r.non2xx + r.errors };
  rows.push(row);
  out(
    `${String(m).padStart(6)} ${row.rps.toFixed(0).padStart(7)} ${String(row.p99).padStart(7)} ${(row.rss / MB).toFixed(1).padStart(7)} ${(row.heap / MB).toFixed(1).padStart(8)} ${String(row.errors).padStart(8)}`,
  );
}

const first = rows[0]!;
const last = rows.at(-1)!;
const mid = rows[Math.floor(rows.length / 2)]!;
const secondHalfMb = (last.rss - mid.rss) / MB;
out('');
out(`p99 drift (last minute / first minute): ${(last.p99 / Math.max(first.p99, 1)).toFixed(2)}`);
out(`RSS: ${(start.rss / MB).toFixed(1)} MB after warm-up, ${(last.rss / MB).toFixed(1)} MB at the end`);
out(
  `RSS growth over the second half: ${secondHalfMb.toFixed(1)} MB (levels off when under ${slackMb} MB: ${secondHalfMb < slackMb ? 'yes' : 'NO'})`,
);
out(`errors (non-2xx and socket errors) over the soak: ${rows.reduce((s, r) => s + r.errors, 0)}`);

await stop(gw);
client.disconnect();
await redis.stop();
process.exit(0);
