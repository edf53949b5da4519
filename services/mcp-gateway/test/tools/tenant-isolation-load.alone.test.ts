/**
 * One tenant cannot stall another (docs/security.md "Bounds", docs/knowledge-tools.md "Search
 * index"): on a real gateway, tenant A brings its project near the section limit and then
 * alternates uploads and searches (each upload moves the index every search must follow), while
 * tenant B calls a tool steadily. B's p99 stays under 50 ms. Before the incremental, time-sliced
 * index, each of A's searches after an upload rebuilt the whole index in one turn of the event
 * loop (4-6 s at 10,000 sections), and B waited that long.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call, post, seed, startFixture, type GatewayFixture, type Seeded } from '../support.ts';

/** The p99 one tenant's churn may leave another tenant with (docs/security.md "Bounds"). */
const OTHER_TENANT_P99_MS = 50;
/** Rounds measured; the best counts, so one stretch of the host's own noise does not decide. */
const ROUNDS = 4;

let f: GatewayFixture;
let a: Seeded;
let b: Seeded;
before(async () => {
  f = await startFixture({ RATE_LIMIT_SCALE: '1000' });
  a = await seed(f.accounts, { plan: 'TEAM', level: 'EDITOR' });
  b = await seed(f.accounts, { plan: 'FREE', level: 'VIEWER' });
});
after(() => f.close());

/** A document of `sections` short sections (about 90 characters each), distinct per `tag`. */
function manySections(tag: string, sections: number): string {
  let md = '';
  for (let i = 0; i < sections; i++) md += `## ${tag} part ${i}\n\nRotation notes ${tag} ${i}: keys rotate, tokens expire.\n\n`;
  return md;
}

const upload = (name: string, content: string) =>
  post(f.url, `/mcp/${a.project}`, call('svc_upload_document', { name, content }), { 'X-API-Key': a.key });
const searchA = (query: string) => post(f.url, `/mcp/${a.project}`, call('svc_search', { query }), { 'X-API-Key': a.key });

/** Tenant B's p99 over 150 calls of svc_help while `background` runs (it is stopped after). */
async function p99Of(background: (running: () => boolean) => Promise<void>): Promise<number> {
  let running = true;
  const work = background(() => running);
  const latencies: number[] = [];
  while (latencies.length < 150) {
    const started = performance.now();
    const r = await post(f.url, `/mcp/${b.project}`, call('svc_help'), { 'X-API-Key': b.key });
    latencies.push(performance.now() - started);
    assert.equal(r.status, 200);
  }
  running = false;
  await work;
  latencies.sort((x, y) => x - y);
  return latencies[Math.floor(latencies.length * 0.99)]!;
}

/** B's p99 while A replaces documents and searches after each. */
const p99WhileChurning = (round: number) =>
  p99Of(async (running) => {
    for (let i = 0; running() && i < 12; i++) {
      assert.equal((await upload(`bulk-${i % 8}.md`, manySections(`r${round}x${i}`, 1_100))).status, 200);
      assert.equal((await searchA(`r${round}x${i} part 7`)).status, 200);
    }
  });

test("a tenant churning a large project's index leaves another tenant's p99 under 50 ms", { timeout: 178_000 }, async () => {
  // Near the 10,000-section limit: 8 documents of 1,100 sections each.
  for (let d = 0; d < 8; d++) assert.equal((await upload(`bulk-${d}.md`, manySections(`d${d}`, 1_100))).status, 200);
  assert.equal((await searchA('rotation')).status, 200, 'the first search loads the whole index');

  // This file runs alone (scripts/test.sh: *.alone.test.ts run after their suite, one at a time),
  // so B's latency is the gateway's, not another test file's. B's p99 without churn is measured
  // just before each round and printed beside it. On the code before the incremental, time-sliced
  // index, A added 480 ms.
  const rounds: string[] = [];
  let best = Infinity;
  for (let round = 0; round < ROUNDS && best >= OTHER_TENANT_P99_MS; round++) {
    const quiet = await p99Of(async () => {});
    const churned = await p99WhileChurning(round);
    best = Math.min(best, churned);
    rounds.push(`${churned.toFixed(1)} (quiet ${quiet.toFixed(1)})`);
  }
  console.log(`tenant B's p99 while A churns, ms: ${rounds.join('; ')}`);
  assert.ok(best < OTHER_TENANT_P99_MS, `B's p99 while A churns, ms: ${rounds.join('; ')}`);
});
