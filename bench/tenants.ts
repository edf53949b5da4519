/**
 * Another tenant's latency while one tenant is at its plan's limits (docs/benchmarks.md "Another
 * tenant's latency"), run by `pnpm bench` after its other rows, or alone (`pnpm bench:tenants`).
 * The gateway runs as its own process with the plans' real rate limits (RATE_LIMIT_SCALE=1).
 * Tenant A (TEAM) keeps its project at 99 % of the section limit and, as fast as its plan's
 * requests per minute admit, replaces one of its documents and searches for what it just wrote
 * (each upload moves the index every search must follow). Tenant B (ENTERPRISE) calls svc_help at
 * a steady rate. In each round B is measured alone, then beside A: p50, p99 and the longest answer,
 * from each call's scheduled time (a late send counts as waiting), and the ratio of the p99s.
 *   BENCH_ROUNDS (default 3), BENCH_TENANT_CALLS (B's calls a phase, default 200),
 *   BENCH_OTHER_RATE (B's calls a second, default 20)
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { LIMITS } from '../packages/knowledge/src/index.ts';
import { planLimits } from '../packages/policy/src/index.ts';
import { benchStack, child, stop, waitHttp } from './stack.ts';

const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
const callsPerPhase = Number(process.env['BENCH_TENANT_CALLS'] ?? 200);
const otherRate = Number(process.env['BENCH_OTHER_RATE'] ?? 20);
/** A's documents: DOCUMENTS x SECTIONS sections, 99 % of LIMITS.sectionsPerProject. */
const DOCUMENTS = 9;
const SECTIONS = 1_100;
const out = (line: string) => process.stdout.write(`${line}\n`);

const { redis, base, env, client, accounts, workspace: workspaceB } = await benchStack('tenant-b');
const keyB = (await accounts.keys.createProjectKey({ project: 'tenant-b', workspace: workspaceB, level: 'VIEWER', name: 'b' })).key;
const userA = await accounts.users.create({ emailVerified: true, email: 'tenant-a@example.com' });
await accounts.workspaces.setPlan(userA.workspace, 'TEAM');
await accounts.workspaces.createProject({ slug: 'tenant-a', workspace: userA.workspace });
const keyA = (await accounts.keys.createProjectKey({ project: 'tenant-a', workspace: userA.workspace, level: 'EDITOR', name: 'a' })).key;
const gw = child(['services/mcp-gateway/src/main.ts'], { ...env, RATE_LIMIT_SCALE: '1' });
await waitHttp(`${base}/healthz`);

async function callTool(
  project: string,
  key: string,
  name: string,
  args: Record<string, unknown>,
): Promise<{ status: number; text: string }> {
  const res = await fetch(`${base}/mcp/${project}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  return { status: res.status, text: await res.text() };
}

/** A document of `SECTIONS` short sections (about 95 characters each), distinct per `tag`. */
function document(tag: string): string {
  let md = '';
  for (let i = 0; i < SECTIONS; i++) md += `## ${tag} part ${i}\n\nRotation notes ${tag} ${i}: keys rotate, tokens expire.\n\n`;
  return md;
}

/** B's calls at `otherRate` a second, each timed from when it was due; its answers' statuses counted. */
async function measureB(): Promise<{ ms: number[]; failed: number }> {
  const interval = 1000 / otherRate;
  const t0 = performance.now();
  const calls: Promise<{ ms: number; status: number }>[] = [];
  for (let i = 0; i < callsPerPhase; i++) {
    const due = t0 + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    calls.push(callTool('tenant-b', keyB, 'svc_help', {}).then((r) => ({ ms: performance.now() - due, status: r.status })));
  }
  const done = await Promise.all(calls);
  return { ms: done.map((c) => c.ms).sort((x, y) => x - y), failed: done.filter((c) => c.status !== 200).length };
}

/** A at its plan's rate: requests started no closer than its requests per minute allow. */
function churnA(round: number): { stop(): Promise<{ requests: number; refused: number; seconds: number }> } {
  const spacing = 60_000 / planLimits('TEAM').requestsPerMinute;
  let running = true;
  let [requests, refused] = [0, 0];
  const t0 = performance.now();
  const paced = async (name: string, args: Record<string, unknown>) => {
    const wait = t0 + requests * spacing - performance.now();
    if (wait > 0) await sleep(wait);
    requests++;
    const r = await callTool('tenant-a', keyA, name, args);
    if (r.status !== 200) refused++;
  };
  const work = (async () => {
    for (let i = 0; running; i++) {
      const tag = `r${round}x${i}`;
      await paced('svc_upload_document', { name: `doc-${i % DOCUMENTS}.md`, content: document(tag) });
      await paced('svc_search', { query: `${tag} part 7` });
    }
  })();
  return {
    async stop() {
      running = false;
      await work;
      return { requests, refused, seconds: (performance.now() - t0) / 1000 };
    },
  };
}

const at = (ms: number[], q: number) => ms[Math.min(ms.length - 1, Math.floor(ms.length * q))] ?? NaN;
const show = (ms: number[]) => `${at(ms, 0.5).toFixed(1)} / ${at(ms, 0.99).toFixed(1)} / ${(ms.at(-1) ?? NaN).toFixed(1)}`;

out(`seeding tenant A: ${DOCUMENTS} documents of ${SECTIONS} sections (limit ${LIMITS.sectionsPerProject})`);
for (let d = 0; d < DOCUMENTS; d++) {
  const r = await callTool('tenant-a', keyA, 'svc_upload_document', { name: `doc-${d}.md`, content: document(`seed${d}`) });
  if (r.status !== 200) throw new Error(`seeding: ${r.status} ${r.text.slice(0, 200)}`);
}
await callTool('tenant-a', keyA, 'svc_search', { query: 'rotation' });

out(`B: ${callsPerPhase} calls of svc_help at ${otherRate}/s a phase; ms p50 / p99 / max`);
const ratios: number[] = [];
for (let round = 0; round < rounds; round++) {
  const quiet = await measureB();
  const churn = churnA(round);
  const beside = await measureB();
  const a = await churn.stop();
  const ratio = at(beside.ms, 0.99) / at(quiet.ms, 0.99);
  ratios.push(ratio);
  out(
    `round ${round + 1}: B alone ${show(quiet.ms)}; B beside A ${show(beside.ms)}; p99 ratio ${ratio.toFixed(2)}; ` +
      `B not 200: ${quiet.failed + beside.failed}; A: ${a.requests} requests at ${(a.requests / a.seconds).toFixed(1)}/s ` +
      `(its plan: ${(planLimits('TEAM').requestsPerMinute / 60).toFixed(1)}/s), ${a.refused} not 200`,
  );
}
ratios.sort((x, y) => x - y);
out(`median p99 ratio (B beside A / B alone): ${at(ratios, 0.5).toFixed(2)}`);
await stop(gw);
client.disconnect();
await redis.stop();
