/**
 * Another tenant's latency while one tenant is at its plan's limits (docs/benchmarks.md "Another
 * tenant's latency"), run by `pnpm bench` after its other rows, or alone (`pnpm bench:tenants`).
 * The gateway runs as its own process with the plans' real rate limits (RATE_LIMIT_SCALE=1).
 * Tenant B (ENTERPRISE) calls svc_help at a steady rate. Tenant A (TEAM), as fast as its plan's
 * requests per minute admit, either
 *   - churns: keeps a project at 99 % of the section limit, replaces one of its documents and
 *     searches for what it just wrote (each upload moves the index every search must follow), or
 *   - uploads: documents of the largest size a tool accepts (200,000 characters, sections of about
 *     700) into another project, each followed by a search for it.
 * In each round B is measured alone, then beside each of A's cases: p50, p99 and the longest answer,
 * from each call's scheduled time (a late send counts as waiting), and the ratio of the p99s; and
 * the gateway's resident memory after each phase.
 *   BENCH_ROUNDS (default 3), BENCH_TENANT_CALLS (B's calls a phase, default 200),
 *   BENCH_OTHER_RATE (B's calls a second, default 20)
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { LIMITS } from '../packages/knowledge/src/index.ts';
import { planLimits } from '../packages/policy/src/index.ts';
import { generatedDocument, prng } from './search-memory.ts';
import { benchStack, child, stop, waitHttp } from './stack.ts';

const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
const callsPerPhase = Number(process.env['BENCH_TENANT_CALLS'] ?? 200);
const otherRate = Number(process.env['BENCH_OTHER_RATE'] ?? 20);
/** A's churned documents: DOCUMENTS x SECTIONS sections, 99 % of LIMITS.sectionsPerProject. */
const DOCUMENTS = 9;
const SECTIONS = 1_100;
/** A's large documents: names reused after LARGE_DOCUMENTS (at about 285 sections each, under the section limit). */
const LARGE_DOCUMENTS = 30;
const LARGE_SECTION_CHARS = 700;
const out = (line: string) => process.stdout.write(`${line}\n`);

const { redis, base, env, client, accounts, workspace: workspaceB } = await benchStack('tenant-b');
const keyB = (await accounts.keys.createProjectKey({ project: 'tenant-b', workspace: workspaceB, level: 'VIEWER', name: 'b' })).key;
const userA = await accounts.users.create({ emailVerified: true, email: 'tenant-a@example.com' });
await accounts.workspaces.setPlan(userA.workspace, 'TEAM');
await accounts.workspaces.createProject({ slug: 'tenant-a', workspace: userA.workspace });
await accounts.workspaces.createProject({ slug: 'tenant-a-large', workspace: userA.workspace });
const keyA = (await accounts.keys.createProjectKey({ project: 'tenant-a', workspace: userA.workspace, level: 'EDITOR', name: 'a' })).key;
const keyLarge = (
  await accounts.keys.createProjectKey({ project: 'tenant-a-large', workspace: userA.workspace, level: 'EDITOR', name: 'a-large' })
).key;
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

/** A request of A's: its project and key, the tool and its arguments. */
type RequestA = [project: string, key: string, name: string, args: Record<string, unknown>];

/** A's churn: replaces one of its 1,100-section documents, then searches for what it wrote. */
function churning(round: number, i: number): RequestA[] {
  const tag = `r${round}x${i}`;
  return [
    ['tenant-a', keyA, 'svc_upload_document', { name: `doc-${i % DOCUMENTS}.md`, content: document(tag) }],
    ['tenant-a', keyA, 'svc_search', { query: `${tag} part 7` }],
  ];
}

const rand = prng(5);
/** LARGE_DOCUMENTS documents of 200,000 characters, generated once: a marked copy of one is each upload. */
const large = Array.from({ length: LARGE_DOCUMENTS }, () => generatedDocument(rand, LIMITS.documentChars - 100, LARGE_SECTION_CHARS));

/** A's uploads: a document of the largest size, then a search for its marker. */
function uploading(round: number, i: number): RequestA[] {
  const tag = `u${round}x${i}`;
  const content = `# ${tag}\n\n${tag} marker\n\n${large[i % LARGE_DOCUMENTS]}`;
  return [
    ['tenant-a-large', keyLarge, 'svc_upload_document', { name: `large-${i % LARGE_DOCUMENTS}.md`, content }],
    ['tenant-a-large', keyLarge, 'svc_search', { query: `${tag} marker` }],
  ];
}

/** A at its plan's rate, sending the requests of `work` in turn: started no closer than its requests per minute allow. */
function runA(
  round: number,
  work: (round: number, i: number) => RequestA[],
): { stop(): Promise<{ requests: number; refused: number; seconds: number }> } {
  const spacing = 60_000 / planLimits('TEAM').requestsPerMinute;
  let running = true;
  let [requests, refused] = [0, 0];
  const t0 = performance.now();
  const paced = async ([project, key, name, args]: RequestA) => {
    const wait = t0 + requests * spacing - performance.now();
    if (wait > 0) await sleep(wait);
    requests++;
    const r = await callTool(project, key, name, args);
    if (r.status !== 200 || r.text.includes('"isError":true')) refused++;
  };
  const sent = (async () => {
    for (let i = 0; running; i++) for (const request of work(round, i)) await paced(request);
  })();
  return {
    async stop() {
      running = false;
      await sent;
      return { requests, refused, seconds: (performance.now() - t0) / 1000 };
    },
  };
}

const at = (ms: number[], q: number) => ms[Math.min(ms.length - 1, Math.floor(ms.length * q))] ?? NaN;
const show = (ms: number[]) => `${at(ms, 0.5).toFixed(1)} / ${at(ms, 0.99).toFixed(1)} / ${(ms.at(-1) ?? NaN).toFixed(1)}`;
/** The gateway's resident memory in MB, from its metrics. */
async function gatewayRss(): Promise<string> {
  const metrics = await (await fetch(`${base}/metrics`)).text();
  return (Number(/^process_resident_memory_bytes (\S+)/m.exec(metrics)?.[1]) / 1e6).toFixed(0);
}

out(`seeding tenant A: ${DOCUMENTS} documents of ${SECTIONS} sections (limit ${LIMITS.sectionsPerProject})`);
for (let d = 0; d < DOCUMENTS; d++) {
  const r = await callTool('tenant-a', keyA, 'svc_upload_document', { name: `doc-${d}.md`, content: document(`seed${d}`) });
  if (r.status !== 200) throw new Error(`seeding: ${r.status} ${r.text.slice(0, 200)}`);
}
await callTool('tenant-a', keyA, 'svc_search', { query: 'rotation' });

const CASES = [
  ['churns', churning],
  ['uploads', uploading],
] as const;
out(`B: ${callsPerPhase} calls of svc_help at ${otherRate}/s a phase; ms p50 / p99 / max`);
out(`A churns: replaces a ${SECTIONS}-section document of its ${DOCUMENTS * SECTIONS} sections, then searches`);
out(`A uploads: a document of ${LIMITS.documentChars} characters in sections of about ${LARGE_SECTION_CHARS}, then searches`);
const ratios = new Map<string, number[]>(CASES.map(([name]) => [name, []]));
for (let round = 0; round < rounds; round++) {
  const quiet = await measureB();
  const memory = [`gateway RSS MB: alone ${await gatewayRss()}`];
  const lines: string[] = [];
  for (const [name, work] of CASES) {
    const a = runA(round, work);
    const beside = await measureB();
    const sent = await a.stop();
    memory.push(`after A ${name} ${await gatewayRss()}`);
    const ratio = at(beside.ms, 0.99) / at(quiet.ms, 0.99);
    ratios.get(name)?.push(ratio);
    lines.push(
      `B beside A ${name} ${show(beside.ms)}; p99 ratio ${ratio.toFixed(2)}; B not 200: ${beside.failed}; ` +
        `A: ${sent.requests} requests at ${(sent.requests / sent.seconds).toFixed(1)}/s, ${sent.refused} not 200 or a tool error`,
    );
  }
  out(`round ${round + 1}: B alone ${show(quiet.ms)}; B not 200: ${quiet.failed}; ${memory.join(', ')}`);
  for (const line of lines) out(`  ${line}`);
}
out(`A's plan: ${(planLimits('TEAM').requestsPerMinute / 60).toFixed(1)} requests/s`);
for (const [name, list] of ratios) {
  list.sort((x, y) => x - y);
  out(`median p99 ratio (B beside A ${name} / B alone): ${at(list, 0.5).toFixed(2)}`);
}
await stop(gw);
client.disconnect();
await redis.stop();
