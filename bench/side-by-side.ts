/**
 * `pnpm bench:side-by-side`: this checkout's gateway against another checkout's (BENCH_OTHER, a
 * path; e.g. a `git worktree` of the commit to compare with), both on one Redis, loaded in turn
 * with the same `tools/call svc_help` in both MCP revisions (docs/benchmarks.md, "2026-11-25
 * (second entry)"). Each run reports the gateway's own CPU time per request, read from
 * `/proc/<pid>/stat` (user + system) around the run: the machine's load moves requests/s between
 * runs, but hardly the CPU one request costs. Prints the median of each side and this / other.
 *   BENCH_OTHER (required), BENCH_SECONDS (default 3), BENCH_CONNECTIONS (default 50),
 *   BENCH_ROUNDS (default 6), BENCH_THIS_FLAGS / BENCH_OTHER_FLAGS (node options of one side, space
 *   separated, e.g. to compare a V8 flag within one checkout)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '@svc/testkit';
import { benchStack, cpuSeconds, stop, waitHttp } from './stack.ts';

const other = process.env['BENCH_OTHER'];
if (!other) throw new Error('BENCH_OTHER: the path of the checkout to compare with');
const seconds = Number(process.env['BENCH_SECONDS'] ?? 3);
const connections = Number(process.env['BENCH_CONNECTIONS'] ?? 50);
const rounds = Math.max(1, Number(process.env['BENCH_ROUNDS'] ?? 6));
const out = (line: string) => process.stdout.write(`${line}\n`);
const { redis, env, accounts, workspace } = await benchStack('bench');
const key = (await accounts.keys.createProjectKey({ project: 'bench', workspace, level: 'VIEWER', name: 'bench' })).key;

interface Side {
  name: string;
  base: string;
  process: ChildProcess;
}
async function gateway(name: string, root: string, flags = ''): Promise<Side> {
  const base = `http://127.0.0.1:${await freePort()}`;
  const c = spawn(process.execPath, [...flags.split(' ').filter(Boolean), 'services/mcp-gateway/src/main.ts'], {
    cwd: root,
    env: { ...process.env, ...env, BASE_URL: base },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitHttp(`${base}/healthz`);
  return { name, base, process: c };
}
const sides = [
  await gateway('this', resolve(import.meta.dirname, '..'), process.env['BENCH_THIS_FLAGS']),
  await gateway('other', resolve(other), process.env['BENCH_OTHER_FLAGS']),
];

const V = '2026-07-28';
const bodies = [
  {
    revision: '2025-11-25',
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_help', arguments: {} } }),
    headers: { 'x-api-key': key },
  },
  {
    revision: V,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'svc_help',
        arguments: {},
        _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} },
      },
    }),
    headers: { 'x-api-key': key, 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': 'svc_help' },
  },
];

async function run(side: Side, b: (typeof bodies)[number], duration: number) {
  const before = cpuSeconds(side.process.pid!);
  const r = await autocannon({
    url: `${side.base}/mcp/bench`,
    method: 'POST',
    body: b.body,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...b.headers },
    connections,
    duration,
    pipelining: 1,
  });
  const cpu = cpuSeconds(side.process.pid!) - before;
  if (r.non2xx > 0) throw new Error(`${side.name} answered ${r.non2xx} non-2xx`);
  return { rps: r.requests.average, microsPerRequest: (cpu * 1e6) / r.requests.total };
}

out(`warming up; then ${rounds} rounds of ${seconds} s per side and revision, ${connections} connections`);
for (const side of sides) for (const b of bodies) await run(side, b, 2);
const results = new Map<string, { rps: number; microsPerRequest: number }[]>();
for (let round = 0; round < rounds; round++) {
  // Alternating which side goes first, so neither always runs right after the other.
  const order = round % 2 === 0 ? sides : [...sides].reverse();
  for (const b of bodies)
    for (const side of order) {
      const r = await run(side, b, seconds);
      const name = `${side.name} ${b.revision}`;
      results.set(name, [...(results.get(name) ?? []), r]);
      out(
        `  round ${round + 1} ${name.padEnd(18)} ${r.rps.toFixed(0).padStart(7)} req/s ${r.microsPerRequest.toFixed(1).padStart(6)} µs/request`,
      );
    }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
out('');
for (const b of bodies) {
  const [mine, theirs] = sides.map((s) => results.get(`${s.name} ${b.revision}`)!);
  const [cpuMine, cpuTheirs] = [mine!, theirs!].map((rs) => median(rs.map((r) => r.microsPerRequest)));
  const [rpsMine, rpsTheirs] = [mine!, theirs!].map((rs) => median(rs.map((r) => r.rps)));
  out(
    `${b.revision}: CPU per request this ${cpuMine!.toFixed(1)} µs, other ${cpuTheirs!.toFixed(1)} µs (this / other ${(cpuMine! / cpuTheirs!).toFixed(3)}); ` +
      `req/s this ${rpsMine!.toFixed(0)}, other ${rpsTheirs!.toFixed(0)} (${(rpsMine! / rpsTheirs!).toFixed(3)})`,
  );
}
await stop(...sides.map((s) => s.process));
await redis.stop();
process.exit(0);
