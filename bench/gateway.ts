/**
 * `pnpm bench`: the gateway's hot path against a bare node:http baseline, measured in the same
 * run on the same machine. Both servers run as child processes; autocannon (the load generator)
 * runs here. Prints requests/s, p50/p99 latency, the ratio gateway / bare, and Redis commands per
 * request read from the gateway's own counter. See docs/benchmarks.md.
 *   BENCH_SECONDS (default 8), BENCH_CONNECTIONS (default 50)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '@svc/testkit';
import { benchStack } from './stack.ts';
import { benchSearchCorpus } from './search.ts';

const root = resolve(import.meta.dirname, '..');
const seconds = Number(process.env['BENCH_SECONDS'] ?? 8);
const connections = Number(process.env['BENCH_CONNECTIONS'] ?? 50);

function child(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
}

async function waitHttp(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`${url} did not come up`);
}

interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

async function load(name: string, url: string, body: string, headers: Record<string, string>, duration = seconds): Promise<Row> {
  const r = await autocannon({
    url,
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    connections,
    duration,
    pipelining: 1,
  });
  return { name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx };
}

async function redisCommands(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Number(/^svc_gateway_redis_commands_total (\d+)/m.exec(text)?.[1] ?? NaN);
}

const { redis, base, env, config, client, accounts, workspace } = await benchStack('bench');
const user = { workspace };
const [barePort, sdkPort] = [await freePort(), await freePort()];
const key = (await accounts.keys.createProjectKey({ project: 'bench', workspace: user.workspace, level: 'VIEWER', name: 'bench' })).key;
await accounts.workspaces.createProject({ slug: 'bench-search', workspace: user.workspace });
const corpus = await benchSearchCorpus(client, 'bench-search');
const searchKey = (
  await accounts.keys.createProjectKey({ project: 'bench-search', workspace: user.workspace, level: 'VIEWER', name: 'bench' })
).key;
const searchBody = (mode: string) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_search', arguments: { ...corpus.args, mode } } });

const gw = child(
  [...(process.env['BENCH_PROFILE'] ? ['--cpu-prof', '--cpu-prof-dir=test-output/profile'] : []), 'services/mcp-gateway/src/main.ts'],
  env,
);
await waitHttp(`${base}/healthz`);
const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_help', arguments: {} } });
const sample = await (
  await fetch(`${base}/mcp/bench`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-api-key': key } })
).text();
const bare = child(['bench/bare-server.ts', String(sample.length), String(barePort)], {});
await waitHttp(`http://127.0.0.1:${barePort}/`);
const sdk = child(['bench/sdk-server.ts', String(sdkPort), redis.url, config.keyPepper], {});
await waitHttp(`http://127.0.0.1:${sdkPort}/mcp`);
const sdkUrl = `http://127.0.0.1:${sdkPort}/mcp`;
const sdkSample = await fetch(sdkUrl, {
  method: 'POST',
  body,
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
});
if (sdkSample.status !== 200) throw new Error(`the SDK baseline answered ${sdkSample.status}: ${await sdkSample.text()}`);

process.stdout.write(`warming up (2 s each); measuring ${seconds} s each with ${connections} connections\n`);
await load('warm', `http://127.0.0.1:${barePort}/`, body, {}, 2);
await load('warm', `${base}/mcp/bench`, body, { 'x-api-key': key }, 2);
const bareRow = await load('bare node:http (same body size)', `http://127.0.0.1:${barePort}/`, body, {});
const before = await redisCommands(base);
const gwRow = await load('gateway tools/call svc_help (cached key, limits on)', `${base}/mcp/bench`, body, { 'x-api-key': key });
const after = await redisCommands(base);
const total = gwRow.rps * seconds;
const perRequest = (after - before) / total;
// The same call in MCP 2026-07-28's shape: _meta in params, the mirrored headers (docs/mcp-revisions.md).
const V = '2026-07-28';
const modernBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {
    name: 'svc_help',
    arguments: {},
    _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} },
  },
});
const modernHeaders = { 'x-api-key': key, 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': 'svc_help' };
await load('warm', `${base}/mcp/bench`, modernBody, modernHeaders, 1);
const modernBefore = await redisCommands(base);
const modernRow = await load('gateway tools/call svc_help, MCP 2026-07-28', `${base}/mcp/bench`, modernBody, modernHeaders);
const modernPerRequest = ((await redisCommands(base)) - modernBefore) / (modernRow.rps * seconds);
await load('warm', sdkUrl, body, { 'x-api-key': key }, 2);
const sdkRow = await load('MCP SDK server (Express, stateless, same key check)', sdkUrl, body, { 'x-api-key': key });
const rows = [bareRow, gwRow, modernRow, sdkRow];
for (const mode of ['keyword', 'hybrid']) {
  await load('warm', `${base}/mcp/bench-search`, searchBody(mode), { 'x-api-key': searchKey }, 1);
  rows.push(
    await load(`gateway svc_search ${mode} (${corpus.sections} sections)`, `${base}/mcp/bench-search`, searchBody(mode), {
      'x-api-key': searchKey,
    }),
  );
}

process.stdout.write(
  `\n${'case'.padEnd(56)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'non-2xx'.padStart(8)}\n`,
);
for (const r of rows)
  process.stdout.write(
    `${r.name.padEnd(56)} ${r.rps.toFixed(0).padStart(9)} ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)} ${String(r.non2xx).padStart(8)}\n`,
  );
process.stdout.write(`\nratio gateway svc_help / bare: ${(gwRow.rps / bareRow.rps).toFixed(2)} (target >= 0.5)\n`);
process.stdout.write(`ratio gateway svc_help 2026-07-28 / bare: ${(modernRow.rps / bareRow.rps).toFixed(2)} (target >= 0.5)\n`);
process.stdout.write(`ratio gateway svc_help / SDK server: ${(gwRow.rps / sdkRow.rps).toFixed(2)} (target >= 3)\n`);
for (const r of rows.slice(4)) process.stdout.write(`ratio ${r.name} / bare: ${(r.rps / bareRow.rps).toFixed(3)}\n`);
process.stdout.write(
  `Redis commands per request: ${perRequest.toFixed(2)} (2025-11-25), ${modernPerRequest.toFixed(2)} (2026-07-28) (target 1)\n`,
);

// The gateway drains (flushing last-used times) before its Redis goes away.
await Promise.all([gw, bare, sdk].map((child) => new Promise((done) => (child.once('exit', done), child.kill('SIGTERM')))));
client.disconnect();
await redis.stop();
process.exit(0);
