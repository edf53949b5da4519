/**
 * `pnpm bench:upstream` (also run by `pnpm bench`): a tools/call that svc forwards to a project's
 * upstream MCP server (docs/upstream-servers.md) against the same call made to that server
 * directly, in the same rounds (docs/benchmarks.md "Forwarded calls").
 * A private redis-server, the gateway as its own process (UPSTREAM_ALLOWED_PRIVATE=127.0.0.1/32) and
 * the upstream as another (bench/upstream-server.ts: `echo` answers at once, `slow` after a fixed
 * delay). A person, a project and keys are seeded; the upstream is registered over REST as a
 * project's admin would. Each case is a tool at a fixed number of calls in flight (a closed loop:
 * each of N workers sends its next call when its last is answered, over kept-alive node:http
 * connections), measured directly and through svc's /mcp/{project} with a VIEWER key, one right
 * after the other in each round (each round starting one case later). Reported per case, as the
 * median of its rounds: calls/s, p50 / p99, the ratio via svc / direct and the p50 svc adds (both
 * taken within each round, then their median), and the CPU time per call of the gateway, the
 * upstream and this process (the load generator), read from /proc/<pid>/stat and
 * process.cpuUsage() around each run, with the Redis commands per call (the gateway's counter).
 * The last cases, the gateway's own svc_help at each number in flight, are what a call costs svc
 * when nothing is forwarded.
 *   BENCH_SECONDS (default 3), BENCH_ROUNDS (default 5), BENCH_CONCURRENCY (default "1,16"),
 *   BENCH_UPSTREAM (plain | sdk, default plain), BENCH_UPSTREAM_DELAY_MS (default 20),
 *   BENCH_CASES (default "echo,slow,svc_help": which tools are measured),
 *   BENCH_PROFILE=1 (the gateway writes a CPU profile to test-output/profile-upstream)
 */
import { Agent, request } from 'node:http';
import { freePort } from '@svc/testkit';
import { benchStack, child, cpuSeconds, stop, waitHttp } from './stack.ts';

const seconds = Number(process.env['BENCH_SECONDS'] ?? 3);
const rounds = Math.max(1, Number(process.env['BENCH_ROUNDS'] ?? 5));
const concurrencies = (process.env['BENCH_CONCURRENCY'] ?? '1,16').split(',').map(Number);
const upstreamKind = process.env['BENCH_UPSTREAM'] === 'sdk' ? 'sdk' : 'plain';
const delayMs = Number(process.env['BENCH_UPSTREAM_DELAY_MS'] ?? 20);
const chosen = new Set((process.env['BENCH_CASES'] ?? 'echo,slow,svc_help').split(','));
const most = Math.max(...concurrencies);
const out = (line: string) => process.stdout.write(`${line}\n`);

const { redis, base, env, client, accounts } = await benchStack('bench');
const owner = await accounts.users.create({ emailVerified: true, email: 'upstream-owner@example.com' });
await accounts.workspaces.setPlan(owner.workspace, 'ENTERPRISE');
const project = 'bench-upstream';
await accounts.workspaces.createProject({ slug: project, workspace: owner.workspace });
const ownerKey = (await accounts.keys.createUserKey({ userId: owner.id })).key;
const key = (await accounts.keys.createProjectKey({ project, workspace: owner.workspace, level: 'VIEWER', name: 'bench' })).key;

const upstreamPort = await freePort();
const upstreamUrl = `http://127.0.0.1:${upstreamPort}/mcp`;
const upstream = child(['bench/upstream-server.ts', upstreamKind, String(upstreamPort), String(delayMs)]);
const gw = child(
  [
    ...(process.env['BENCH_PROFILE'] ? ['--cpu-prof', '--cpu-prof-dir=test-output/profile-upstream'] : []),
    'services/mcp-gateway/src/main.ts',
  ],
  { ...env, UPSTREAM_ALLOWED_PRIVATE: '127.0.0.1/32' },
);
await waitHttp(`${base}/healthz`);
await waitHttp(upstreamUrl);

const added = await fetch(`${base}/api/v1/projects/${project}/upstreams`, {
  method: 'POST',
  headers: { 'x-api-key': ownerKey, 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'up', url: upstreamUrl }),
});
if (added.status !== 201) throw new Error(`registering the upstream: ${added.status} ${await added.text()}`);
await added.text();

/** Where a call goes: its URL, its body and headers (content-length included), and the process that serves it. */
interface Target {
  url: URL;
  body: string;
  headers: Record<string, string | number>;
}
const call = (name: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } });
function target(url: string, body: string, headers: Record<string, string>): Target {
  return {
    url: new URL(url),
    body,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      // MCP 2025-11-25 "Transports": the revision header on every request after initialization.
      'mcp-protocol-version': '2025-11-25',
      'content-length': Buffer.byteLength(body),
      ...headers,
    },
  };
}
const direct = (tool: string) => target(upstreamUrl, call(tool), {});
const viaSvc = (tool: string) => target(`${base}/mcp/${project}`, call(tool), { 'x-api-key': key });

/** One call; true when it was answered 200 with a result that is no error. */
function post(t: Target, agent: Agent): Promise<boolean> {
  return new Promise((ok, fail) => {
    const req = request(t.url, { method: 'POST', agent, headers: t.headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => ok(res.statusCode === 200 && text.includes('"result"') && !text.includes('"isError":true')));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end(t.body);
  });
}

for (const [name, t] of [
  ['direct', direct('echo')],
  ['via svc', viaSvc('up__echo')],
] as const)
  if (!(await post(t, new Agent()))) throw new Error(`the ${name} call failed`);

interface Run {
  cps: number;
  p50: number;
  p99: number;
  calls: number;
  failed: number;
  /** CPU µs per call: the gateway's, the upstream's, this process's. */
  gateway: number;
  upstream: number;
  client: number;
  /** Redis commands the gateway sent per call. */
  redis: number;
}

async function redisCommands(): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Number(/^svc_gateway_redis_commands_total (\d+)/m.exec(text)?.[1] ?? NaN);
}

const at = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? NaN;

/** `concurrency` workers calling `t` back to back for `duration` s. */
async function load(t: Target, concurrency: number, duration: number): Promise<Run> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const ms: number[] = [];
  let failed = 0;
  const commandsBefore = await redisCommands();
  const [gwBefore, upBefore, clientBefore] = [cpuSeconds(gw.pid!), cpuSeconds(upstream.pid!), process.cpuUsage()];
  const started = performance.now();
  const end = started + duration * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      if (!(await post(t, agent))) failed++;
      ms.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  const clientCpu = process.cpuUsage(clientBefore);
  const [gwCpu, upCpu] = [cpuSeconds(gw.pid!) - gwBefore, cpuSeconds(upstream.pid!) - upBefore];
  const commands = (await redisCommands()) - commandsBefore;
  agent.destroy();
  ms.sort((a, b) => a - b);
  const calls = ms.length;
  return {
    cps: calls / elapsed,
    p50: at(ms, 0.5),
    p99: at(ms, 0.99),
    calls,
    failed,
    gateway: (gwCpu * 1e6) / calls,
    upstream: (upCpu * 1e6) / calls,
    client: (clientCpu.user + clientCpu.system) / calls,
    redis: commands / calls,
  };
}

interface Case {
  name: string;
  concurrency: number;
  /** The direct call, absent for a call only svc answers. */
  direct: Target | null;
  svc: Target;
}
const cases: Case[] = [
  ...concurrencies.map((c) => ({ name: `echo, ${c} in flight`, concurrency: c, direct: direct('echo'), svc: viaSvc('up__echo') })),
  { name: `slow (${delayMs} ms), ${most} in flight`, concurrency: most, direct: direct('slow'), svc: viaSvc('up__slow') },
  ...concurrencies.map((c) => ({
    name: `svc_help (not forwarded), ${c} in flight`,
    concurrency: c,
    direct: null,
    svc: viaSvc('svc_help'),
  })),
].filter((c) => chosen.has(c.name.split(/[ ,]/)[0]!));

out(`upstream: ${upstreamKind === 'sdk' ? 'MCP SDK v1 McpServer, stateless Streamable HTTP, JSON answers' : 'plain node:http JSON-RPC'}`);
out(`warming up (2 s a case and path); then ${rounds} rounds of ${seconds} s a case and path, direct then via svc`);
for (const c of cases) {
  if (c.direct) await load(c.direct, c.concurrency, 2);
  await load(c.svc, c.concurrency, 2);
}
const measured = new Map<Case, { direct: Run | null; svc: Run }[]>(cases.map((c) => [c, []]));
const fmt = (r: Run) =>
  `${r.cps.toFixed(0).padStart(6)}/s ${r.p50.toFixed(2)} / ${r.p99.toFixed(2)} ms, CPU µs/call gw ${r.gateway.toFixed(0)} up ${r.upstream.toFixed(0)} client ${r.client.toFixed(0)}` +
  (r.failed ? `, ${r.failed} FAILED` : '');
for (let round = 1; round <= rounds; round++) {
  // Each round starts one case later, so no case always follows the same one.
  const order = cases.map((_, i) => cases[(i + round - 1) % cases.length]!);
  for (const c of order) {
    const d = c.direct ? await load(c.direct, c.concurrency, seconds) : null;
    const s = await load(c.svc, c.concurrency, seconds);
    measured.get(c)!.push({ direct: d, svc: s });
    out(`  round ${round} ${c.name.padEnd(36)} ${d ? `direct ${fmt(d)}; ` : ''}via svc ${fmt(s)}`);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const n0 = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : '–');
const n2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '–');
out('');
out(`medians of ${rounds} rounds of ${seconds} s; ms; CPU µs per call; upstream: ${upstreamKind}`);
out(
  '| case | direct calls/s | via svc calls/s | via svc / direct | direct p50 / p99 | via svc p50 / p99 | p50 svc adds | gateway CPU | upstream CPU (direct / via svc) | Redis commands |',
);
out('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
let failures = 0;
for (const c of cases) {
  const rs = measured.get(c)!;
  const m = (pick: (r: Run) => number, side: 'direct' | 'svc') => median(rs.map((r) => (r[side] ? pick(r[side]) : NaN)));
  const paired = (f: (d: Run, s: Run) => number) => median(rs.map((r) => (r.direct ? f(r.direct, r.svc) : NaN)));
  failures += rs.reduce((sum, r) => sum + (r.direct?.failed ?? 0) + r.svc.failed, 0);
  out(
    `| ${c.name} | ${n0(m((r) => r.cps, 'direct'))} | ${n0(m((r) => r.cps, 'svc'))} | ${n2(paired((d, s) => s.cps / d.cps))} | ` +
      `${n2(m((r) => r.p50, 'direct'))} / ${n2(m((r) => r.p99, 'direct'))} | ${n2(m((r) => r.p50, 'svc'))} / ${n2(m((r) => r.p99, 'svc'))} | ` +
      `${n2(paired((d, s) => s.p50 - d.p50))} | ${n0(m((r) => r.gateway, 'svc'))} | ${n0(m((r) => r.upstream, 'direct'))} / ${n0(m((r) => r.upstream, 'svc'))} | ` +
      `${n2(m((r) => r.redis, 'svc'))} |`,
  );
}
out(`calls that failed (not 200, or a JSON-RPC or tool error): ${failures}`);
await stop(gw, upstream);
client.disconnect();
await redis.stop();
