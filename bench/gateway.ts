/**
 * `pnpm bench`: the gateway's hot path against a bare node:http baseline and against the MCP server
 * a user of the official SDK would write (bench/sdk-server.ts), measured in the same run on the same
 * machine; then the verified-credential cache under 100,000 keys and a revocation a second
 * (bench/key-churn.ts). The servers run as child processes; autocannon (the load generator) runs
 * here. Prints requests/s, p50/p99 latency, the ratios gateway / bare and gateway / SDK server, and
 * Redis commands per request read from the gateway's own counter. See docs/benchmarks.md.
 * The four main cases (bare, the gateway in both revisions, the SDK server) run in ROUNDS rounds,
 * one case after the other in each round (each round starting one case later), and each reports
 * its median round: on a shared machine a slow stretch then touches every case alike instead of one.
 * Two more cases measure the floor (bench/floor-server.ts): the bare server plus the least work the
 * gateway's contract requires (the exact limiter's one Redis call per turn included), and the same
 * with a local, inexact limiter: what any implementation of the contract could reach here.
 * Then bare and the gateway at a fixed rate of half their measured capacity (p99 at half capacity),
 * and two gateway processes on one Redis against one, the load split between their ports.
 *   BENCH_SECONDS (default 8), BENCH_CONNECTIONS (default 50), BENCH_KEYS (default 100000),
 *   BENCH_ROUNDS (default 5)
 * BENCH_TRACING=1 adds a second gateway with tracing on, exporting OTLP/HTTP JSON to a local sink
 * that discards it, measured in the same rounds (docs/operations.md "Traces"): called with a
 * sampled traceparent (every request traced) and without one (the default sampler's one in ten).
 * BENCH_BASE_MAIN=<path to another checkout's services/mcp-gateway/src/main.ts> adds that gateway
 * (tracing off) to the same rounds: this build against another, alternating within one run.
 */
import { createServer } from 'node:http';
import autocannon from 'autocannon';
import { freePort } from '@svc/testkit';
import { printChurn, runKeyChurn, seedChurnKeys } from './key-churn.ts';
import { leasedPrice } from './leased.ts';
import { benchSearchCorpus } from './search.ts';
import { benchStack, child, cpuSeconds, stop, waitHttp } from './stack.ts';

const seconds = Number(process.env['BENCH_SECONDS'] ?? 8);
const connections = Number(process.env['BENCH_CONNECTIONS'] ?? 50);
const churnKeys = Number(process.env['BENCH_KEYS'] ?? 100_000);
const rounds = Math.max(1, Number(process.env['BENCH_ROUNDS'] ?? 5));
const tracing = process.env['BENCH_TRACING'] === '1';
const baseMain = process.env['BENCH_BASE_MAIN'] ?? null;
const started = Date.now();
const out = (line: string) => process.stdout.write(`${line}\n`);

interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

async function load(
  name: string,
  url: string,
  body: string,
  headers: Record<string, string>,
  duration = seconds,
  options: { connections?: number; overallRate?: number } = {},
): Promise<Row> {
  const r = await autocannon({
    url,
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    connections: options.connections ?? connections,
    duration,
    pipelining: 1,
    ...(options.overallRate ? { overallRate: options.overallRate } : {}),
  });
  // Every case measures the admitted path: a refusal counted as throughput would flatter the ratio
  // (a limit the bench's scale did not lift, such as the cap on calls in flight).
  if (r.non2xx > 0) throw new Error(`${name}: ${r.non2xx} answers were not 2xx: ${JSON.stringify(r.statusCodeStats)}`);
  return { name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx };
}

async function redisCommands(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Number(/^svc_gateway_redis_commands_total (\d+)/m.exec(text)?.[1] ?? NaN);
}

const { redis, base, env, config, client, accounts, workspace } = await benchStack('bench');
const [barePort, sdkPort] = [await freePort(), await freePort()];
const key = (await accounts.keys.createProjectKey({ project: 'bench', workspace, level: 'VIEWER', name: 'bench' })).key;
await accounts.workspaces.createProject({ slug: 'bench-search', workspace });
const corpus = await benchSearchCorpus(client, 'bench-search');
const searchKey = (await accounts.keys.createProjectKey({ project: 'bench-search', workspace, level: 'VIEWER', name: 'bench' })).key;
const searchBody = (mode: string) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_search', arguments: { ...corpus.args, mode } } });
out(`creating ${churnKeys} keys for the key-churn rows`);
const churnSet = await seedChurnKeys(accounts, workspace, 'churn', churnKeys);
out(`  ${churnSet.seconds.toFixed(1)} s`);

const gw = child(
  [...(process.env['BENCH_PROFILE'] ? ['--cpu-prof', '--cpu-prof-dir=test-output/profile'] : []), 'services/mcp-gateway/src/main.ts'],
  env,
);
await waitHttp(`${base}/healthz`);
const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_help', arguments: {} } });
const sample = await (
  await fetch(`${base}/mcp/bench`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-api-key': key } })
).text();
// BENCH_TRACING: the same gateway with tracing on; its spans go to a sink that reads and drops them.
let sinkSpans = 0;
const sink = tracing
  ? createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        sinkSpans++;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    })
  : null;
const tracedPort = await freePort();
const tracedBase = `http://127.0.0.1:${tracedPort}`;
let traced: ReturnType<typeof child> | null = null;
if (sink) {
  const sinkPort = await freePort();
  await new Promise<void>((ok) => sink.listen(sinkPort, '127.0.0.1', ok));
  traced = child(['services/mcp-gateway/src/main.ts'], {
    ...env,
    PORT: String(tracedPort),
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sinkPort}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  });
  await waitHttp(`${tracedBase}/healthz`);
}
const otherPort = await freePort();
const otherBase = `http://127.0.0.1:${otherPort}`;
const other = baseMain ? child([baseMain], { ...env, PORT: String(otherPort) }) : null;
if (other) await waitHttp(`${otherBase}/healthz`);
const bare = child(['bench/bare-server.ts', String(sample.length), String(barePort)]);
await waitHttp(`http://127.0.0.1:${barePort}/`);
const [floorPort, localFloorPort] = [await freePort(), await freePort()];
const floor = child(['bench/floor-server.ts', String(sample.length), String(floorPort)], { REDIS_URL: redis.url });
const localFloor = child(['bench/floor-server.ts', String(sample.length), String(localFloorPort)], { FLOOR_LIMITER: 'local' });
await waitHttp(`http://127.0.0.1:${floorPort}/`);
await waitHttp(`http://127.0.0.1:${localFloorPort}/`);
const sdk = child(['bench/sdk-server.ts', String(sdkPort), redis.url, config.keyPepper]);
await waitHttp(`http://127.0.0.1:${sdkPort}/mcp`);
const sdkUrl = `http://127.0.0.1:${sdkPort}/mcp`;
const sdkSample = await fetch(sdkUrl, {
  method: 'POST',
  body,
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
});
if (sdkSample.status !== 200) throw new Error(`the SDK baseline answered ${sdkSample.status}: ${await sdkSample.text()}`);
await sdkSample.text();

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
// Skipped only when the gateway refuses the revision itself (400); any other answer is measured.
const probe = await fetch(`${base}/mcp/bench`, {
  method: 'POST',
  body: modernBody,
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...modernHeaders },
});
const probeText = await probe.text();
const modernSkipped = probe.status === 400 ? probeText.slice(0, 200) : null;

/** The floor's cases (bench/floor-server.ts): the bare server plus the least the contract requires, and the same with a local limiter. */
const FLOOR = 'floor: bare + the least the contract needs';
const LOCAL_FLOOR = 'floor with a local, inexact limiter instead';

interface Case {
  name: string;
  url: string;
  body: string;
  headers: Record<string, string>;
  /** Redis commands per request, read from the gateway's counter (gateway cases only). */
  countsCommands?: boolean;
  /** The server's process: its CPU time per request is read around each run. */
  pid: number;
}
const cases: Case[] = [
  { name: 'bare node:http (same body size)', url: `http://127.0.0.1:${barePort}/`, body, headers: {}, pid: bare.pid! },
  {
    name: 'gateway tools/call svc_help, 2025-11-25',
    url: `${base}/mcp/bench`,
    body,
    headers: { 'x-api-key': key },
    countsCommands: true,
    pid: gw.pid!,
  },
  ...(modernSkipped === null
    ? [
        {
          name: `gateway tools/call svc_help, MCP ${V}`,
          url: `${base}/mcp/bench`,
          body: modernBody,
          headers: modernHeaders,
          countsCommands: true,
          pid: gw.pid!,
        },
      ]
    : []),
  ...(tracing
    ? [
        {
          name: 'gateway tools/call svc_help, 2025-11-25, tracing on',
          url: `${tracedBase}/mcp/bench`,
          body,
          headers: { 'x-api-key': key, traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
          pid: traced!.pid!,
        },
        // No caller trace: the default sampler keeps one request in ten (docs/operations.md "Traces").
        {
          name: 'gateway tools/call svc_help, 2025-11-25, tracing on, default sampler',
          url: `${tracedBase}/mcp/bench`,
          body,
          headers: { 'x-api-key': key },
          pid: traced!.pid!,
        },
      ]
    : []),
  ...(baseMain
    ? [
        {
          name: 'gateway tools/call svc_help, 2025-11-25, BENCH_BASE_MAIN',
          url: `${otherBase}/mcp/bench`,
          body,
          headers: { 'x-api-key': key },
          pid: other!.pid!,
        },
      ]
    : []),
  {
    name: FLOOR,
    url: `http://127.0.0.1:${floorPort}/`,
    body,
    headers: { 'x-api-key': key },
    pid: floor.pid!,
  },
  {
    name: LOCAL_FLOOR,
    url: `http://127.0.0.1:${localFloorPort}/`,
    body,
    headers: { 'x-api-key': key },
    pid: localFloor.pid!,
  },
  { name: 'MCP SDK server (Express, stateless, same key check)', url: sdkUrl, body, headers: { 'x-api-key': key }, pid: sdk.pid! },
];
out(`warming up (2 s each); measuring ${seconds} s each with ${connections} connections, ${rounds} rounds`);
for (const c of cases) await load('warm', c.url, c.body, c.headers, 2);
const measured = new Map<Case, { row: Row; commands: number; cpu: number }[]>(cases.map((c) => [c, []]));
for (let round = 1; round <= rounds; round++) {
  // Each round starts one case later, so no case always follows the same one.
  const order = cases.map((_, i) => cases[(i + round - 1) % cases.length]!);
  for (const c of order) {
    const before = c.countsCommands ? await redisCommands(base) : 0;
    const cpuBefore = cpuSeconds(c.pid);
    const row = await load(c.name, c.url, c.body, c.headers);
    const cpu = ((cpuSeconds(c.pid) - cpuBefore) * 1e6) / (row.rps * seconds);
    const commands = c.countsCommands ? ((await redisCommands(base)) - before) / (row.rps * seconds) : NaN;
    measured.get(c)!.push({ row, commands, cpu });
  }
  out(`  round ${round}: ${cases.map((c) => measured.get(c)!.at(-1)!.row.rps.toFixed(0)).join(' / ')} req/s`);
}
/** A case's median round by requests/s. */
const median = (c: Case) => [...measured.get(c)!].sort((a, b) => a.row.rps - b.row.rps)[Math.floor(rounds / 2)]!;
const [bareRow, gwRow, sdkRow] = [cases[0]!, cases[1]!, cases.at(-1)!].map((c) => median(c).row) as [Row, Row, Row];
const perRequest = median(cases[1]!).commands;
const modernCase = modernSkipped === null ? cases[2]! : null;
const modernRow = modernCase ? median(modernCase).row : null;
const modernPerRequest = modernCase ? median(modernCase).commands : NaN;
const tracedCase = cases.find((c) => c.name.endsWith('tracing on')) ?? null;
const otherCase = cases.find((c) => c.name.endsWith('BENCH_BASE_MAIN')) ?? null;
const otherRow = otherCase ? median(otherCase).row : null;
const tracedRow = tracedCase ? median(tracedCase).row : null;
const sampledCase = cases.find((c) => c.name.endsWith('default sampler')) ?? null;
const sampledRow = sampledCase ? median(sampledCase).row : null;
const [floorRow, localFloorRow] = [FLOOR, LOCAL_FLOOR].map((name) => median(cases.find((c) => c.name === name)!).row) as [Row, Row];
const rows = [
  bareRow,
  floorRow,
  localFloorRow,
  gwRow,
  ...(modernRow ? [modernRow] : []),
  ...(tracedRow ? [tracedRow] : []),
  ...(sampledRow ? [sampledRow] : []),
  ...(otherRow ? [otherRow] : []),
  sdkRow,
];

// p99 at half of the measured capacity: each case at a fixed rate of half its median round's
// requests/s (autocannon's overallRate), the latency a tier sized with headroom shows.
out(`\nat half of each case's measured capacity (${seconds} s a case, fixed rate)`);
const halfCases = [cases[0]!, cases[1]!, ...(modernCase ? [modernCase] : [])];
const halfRows: { row: Row; rate: number }[] = [];
for (const c of halfCases) {
  const rate = Math.round(median(c).row.rps / 2);
  halfRows.push({ row: await load(c.name, c.url, c.body, c.headers, seconds, { overallRate: rate }), rate });
}

// Two gateway processes against one, the same load (the same connections in all, split evenly
// between two ports when there are two), in alternating rounds; both gateways share the one Redis,
// so the limiter stays exact across them. On two cores shared with the load generator and Redis
// this shows how far the tier scales out here, not what a second machine would add.
const gw2Port = await freePort();
const gw2Base = `http://127.0.0.1:${gw2Port}`;
const gw2 = child(['services/mcp-gateway/src/main.ts'], { ...env, BASE_URL: gw2Base });
await waitHttp(`${gw2Base}/healthz`);
const half = Math.max(1, Math.floor(connections / 2));
const split = async (): Promise<number> => {
  const both = await Promise.all(
    [base, gw2Base].map((b) => load('two', `${b}/mcp/bench`, body, { 'x-api-key': key }, seconds, { connections: half })),
  );
  return both[0]!.rps + both[1]!.rps;
};
await split(); // warm the second gateway's cache and JIT
const scaleRounds = Math.min(rounds, 3);
const oneRps: number[] = [];
const twoRps: number[] = [];
for (let round = 0; round < scaleRounds; round++) {
  if (round % 2 === 0) {
    oneRps.push((await load('one', `${base}/mcp/bench`, body, { 'x-api-key': key })).rps);
    twoRps.push(await split());
  } else {
    twoRps.push(await split());
    oneRps.push((await load('one', `${base}/mcp/bench`, body, { 'x-api-key': key })).rps);
  }
  out(`  one / two gateways, round ${round + 1}: ${oneRps.at(-1)!.toFixed(0)} / ${twoRps.at(-1)!.toFixed(0)} req/s`);
}
await stop(gw2);
const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const [oneGateway, twoGateways] = [mid(oneRps), mid(twoRps)];
// The leased limiter's price (bench/leased.ts): replicas sharing a real limit, some killed mid-block.
const price = await leasedPrice(redis.url);

const searchRows: Row[] = [];
for (const mode of ['keyword', 'hybrid']) {
  await load('warm', `${base}/mcp/bench-search`, searchBody(mode), { 'x-api-key': searchKey }, 1);
  searchRows.push(
    await load(`gateway svc_search ${mode} (${corpus.sections} sections)`, `${base}/mcp/bench-search`, searchBody(mode), {
      'x-api-key': searchKey,
    }),
  );
}

out(`\nmeasuring the cache under key churn (${seconds} s a phase)`);
const churn = await runKeyChurn({ base, accounts, client }, churnSet, { seconds, connections });

out(
  `\n${'case'.padEnd(56)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'non-2xx'.padStart(8)} ${'/ bare'.padStart(7)}`,
);
for (const r of [...rows, ...searchRows])
  out(
    `${r.name.padEnd(56)} ${r.rps.toFixed(0).padStart(9)} ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)} ${String(r.non2xx).padStart(8)} ${(r.rps / bareRow.rps).toFixed(3).padStart(7)}`,
  );
if (modernSkipped !== null)
  out(`${`gateway tools/call svc_help, MCP ${V}`.padEnd(56)} skipped: the gateway answered 400 (${modernSkipped})`);
const verdict = (ratio: number, target: number) => `${ratio.toFixed(2)} (target >= ${target}: ${ratio >= target ? 'met' : 'NOT met'})`;
out('');
out(`ratio gateway / bare, 2025-11-25: ${verdict(gwRow.rps / bareRow.rps, 0.8)}`);
if (modernRow) out(`ratio gateway / bare, ${V}: ${verdict(modernRow.rps / bareRow.rps, 0.8)}`);
out(
  `ratio floor / bare: ${(floorRow.rps / bareRow.rps).toFixed(2)} (the most an implementation of the contract reaches here); ` +
    `with a local, inexact limiter: ${(localFloorRow.rps / bareRow.rps).toFixed(2)}`,
);
out(
  `ratio gateway / floor: ${(gwRow.rps / floorRow.rps).toFixed(2)} (2025-11-25)${modernRow ? `, ${(modernRow.rps / floorRow.rps).toFixed(2)} (${V})` : ''}`,
);
/** A case's server CPU time per request, median of its rounds, in µs. */
const cpuOf = (c: Case) => [...measured.get(c)!].map((m) => m.cpu).sort((a, b) => a - b)[Math.floor(rounds / 2)]!;
out(`server CPU per request (median round, µs): ${cases.map((c) => `${c.name.split(' (')[0]} ${cpuOf(c).toFixed(1)}`).join('; ')}`);
out(
  `bare / gateway CPU per request (the ratio if each server had a core to itself): ${(cpuOf(cases[0]!) / cpuOf(cases[1]!)).toFixed(2)} (2025-11-25)` +
    `${modernCase ? `, ${(cpuOf(cases[0]!) / cpuOf(modernCase)).toFixed(2)} (${V})` : ''}`,
);
// What 0.8 of bare leaves for everything the gateway does beyond the contract's minimum
// (docs/benchmarks.md "2026-12-07 (fourth entry)").
const localFloorCpu = cpuOf(cases.find((c) => c.name === LOCAL_FLOOR)!);
const allowed = cpuOf(cases[0]!) / 0.8;
out(
  `CPU a request at 0.8 of bare: ${allowed.toFixed(1)} µs; the floor with a local limiter (the contract's minimum) spends ` +
    `${localFloorCpu.toFixed(1)}, leaving ${(allowed - localFloorCpu).toFixed(1)} for all the gateway does beyond it, which costs ` +
    `${(cpuOf(cases[1]!) - localFloorCpu).toFixed(1)} (2025-11-25)${modernCase ? `, ${(cpuOf(modernCase) - localFloorCpu).toFixed(1)} (${V})` : ''}`,
);
out(`ratio gateway / SDK server, 2025-11-25: ${verdict(gwRow.rps / sdkRow.rps, 3)}`);
if (modernRow) out(`ratio gateway / SDK server, ${V}: ${verdict(modernRow.rps / sdkRow.rps, 3)}`);
out(
  `Redis commands per request: ${perRequest.toFixed(2)} (2025-11-25)${modernRow ? `, ${modernPerRequest.toFixed(2)} (${V})` : ''} (target: at most 1.00)`,
);
out(`\np99 at half of the measured capacity (fixed rate):`);
for (const { row, rate } of halfRows)
  out(
    `${row.name.padEnd(56)} ${String(rate).padStart(7)} req/s asked, ${row.rps.toFixed(0).padStart(7)} sent, p50 ${row.p50} ms, p99 ${row.p99} ms, non-2xx ${row.non2xx}`,
  );
out(
  `two gateway processes / one (2025-11-25, ${connections} connections in all, median of ${scaleRounds} rounds): ` +
    `${twoGateways.toFixed(0)} / ${oneGateway.toFixed(0)} req/s = ${(twoGateways / oneGateway).toFixed(2)}`,
);
out(
  `leased limits, ${price.replicas} replicas on one Redis, ${price.limit} a minute, ${price.kills} killed mid-block: ` +
    `most admitted in a minute ${price.mostAdmitted} (limit ${price.limit}: ${price.mostAdmitted <= price.limit ? 'never exceeded' : 'EXCEEDED'}), ` +
    `false denials ${price.falseDenials} of ${price.requests} requests (${((100 * price.falseDenials) / price.requests).toFixed(2)} %)`,
);
if (tracedRow) {
  out(`ratio gateway tracing on / off, 2025-11-25: ${(tracedRow.rps / gwRow.rps).toFixed(3)} (${sinkSpans} OTLP exports received)`);
  // Per round, the two gateways measured in the same round: the ratio a slow stretch touches least.
  const perRound = measured.get(tracedCase!)!.map((m, i) => m.row.rps / measured.get(cases[1]!)!.at(i)!.row.rps);
  out(`  per round: ${perRound.map((r) => r.toFixed(3)).join(' ')}`);
}
if (sampledRow) {
  const perRound = measured.get(sampledCase!)!.map((m, i) => m.row.rps / measured.get(cases[1]!)!.at(i)!.row.rps);
  out(`ratio gateway tracing on with the default sampler (no caller trace) / off: ${(sampledRow.rps / gwRow.rps).toFixed(3)}`);
  out(`  per round: ${perRound.map((r) => r.toFixed(3)).join(' ')}`);
}
if (otherRow) {
  const perRound = measured.get(otherCase!)!.map((m, i) => measured.get(cases[1]!)!.at(i)!.row.rps / m.row.rps);
  out(
    `ratio this gateway / BENCH_BASE_MAIN's: ${(gwRow.rps / otherRow.rps).toFixed(3)}; per round: ${perRound.map((r) => r.toFixed(3)).join(' ')}`,
  );
}
printChurn(churnSet, churn);
out(`\nwhole run: ${((Date.now() - started) / 1000).toFixed(0)} s`);

// The gateway drains (flushing last-used times) before its Redis goes away.
await stop(gw, bare, floor, localFloor, sdk, ...(traced ? [traced] : []), ...(other ? [other] : []));
sink?.close();
client.disconnect();
await redis.stop();
process.exit(0);
