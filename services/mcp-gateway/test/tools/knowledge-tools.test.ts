/** Each knowledge tool's behaviour and invalid arguments, isolation between projects, and lease concurrency. */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { eventually, startRedis, waitFor, type RedisFixture } from '@svc/testkit';
import { SvcError } from '@svc/errors';
import { STORAGE_QUOTAS } from '@svc/policy';
import { MEMORY_LIMITS } from '@svc/knowledge';
import { caller, harness, textOf } from './tool-harness.ts';
import { MULTI_PROJECT_QUERY_MAX } from '../../src/tools/svc-multi-project-query.ts';

let redis: RedisFixture;
let h: ReturnType<typeof harness>;
const A = caller('proj-a');
const B = caller('proj-b');
const DOC =
  '# Rotation\n\nRotate keys every ninety days and revoke the old key.\n\n# Quotas\n\nThe monthly quota of the pelican plan resets on the first day.';

before(async () => {
  redis = await startRedis();
  h = harness(redis.client);
});
beforeEach(() => redis.flush());
after(() => redis.stop());

test('every tool schema is closed and describes each argument', () => {
  assert.ok(h.registry.get('svc_help') && h.registry.get('svc_upload_document'), "the gateway's own tool list");
  for (const t of h.registry.all()) {
    const s = t.def.inputSchema as { additionalProperties: boolean; properties: Record<string, { description?: string }> };
    assert.equal(s.additionalProperties, false, t.def.name);
    for (const [k, p] of Object.entries(s.properties)) assert.ok(p.description, `${t.def.name}.${k}`);
  }
});

test('svc_upload_document stores sections, replaces on re-upload, and refuses bad input', async () => {
  const r = await h.call('svc_upload_document', { name: 'ops.md', content: DOC }, A);
  assert.equal(r.isError, undefined);
  assert.deepEqual(r.structuredContent?.['headings'], ['Rotation', 'Quotas']);
  const again = await h.call('svc_upload_document', { name: 'ops.md', content: '# Only\n\none section' }, A);
  assert.equal(again.structuredContent?.['replaced'], true);
  assert.match(textOf(await h.call('svc_search', { query: 'pelican' }, A)), /No section matches/);
  const big = await h.call('svc_upload_document', { name: 'big.md', content: 'x'.repeat(200_001) }, A);
  assert.equal(big.isError, true);
  assert.match(textOf(big), /content must NOT have more than 200000 characters/);
  assert.equal((await h.call('svc_upload_document', { name: 'x.md' }, A)).isError, true);
  assert.match(textOf(await h.call('svc_upload_document', { name: 'x.md', content: 'a', extra: 1 }, A)), /unknown argument "extra"/);
  assert.equal((await h.call('svc_upload_document', { name: 'x.md', content: '   \n' }, A)).isError, true);
});

test('svc_search puts the best section first in content[0], in each mode', async () => {
  await h.call('svc_upload_document', { name: 'ops.md', content: DOC }, A);
  assert.match((await h.call('svc_search', { query: 'pelican quota', mode: 'keyword' }, A)).content[0]?.text ?? '', /pelican/);
  const hy = await h.call('svc_search', { query: 'how often should keys be rotated', mode: 'hybrid' }, A);
  assert.match(hy.content[0]?.text ?? '', /ninety/);
  const results = hy.structuredContent?.['results'] as { document: string; heading: string }[];
  assert.deepEqual([results[0]?.document, results[0]?.heading], ['ops.md', 'Rotation']);
  assert.match(textOf(await h.call('svc_search', { query: 'x', mode: 'fuzzy' }, A)), /mode must be equal to one of the allowed values/);
  assert.equal((await h.call('svc_search', { query: '' }, A)).isError, true);
  assert.equal((await h.call('svc_search', { query: 'x', limit: 51 }, A)).isError, true);
});

test('svc_context_query fits the budget, best first, session context first', async () => {
  const long = Array.from({ length: 8 }, (_, i) => `# Part ${i}\n\n${'pelican facts and quota details. '.repeat(30 + i)}`).join('\n\n');
  await h.call('svc_upload_document', { name: 'long.md', content: long }, A);
  await h.call('svc_inject', { text: 'The user works on the pelican migration.' }, A);
  const r = await h.call('svc_context_query', { query: 'pelican quota', max_tokens: 1000 }, A);
  const s = r.structuredContent as { used_tokens: number; sections: unknown[]; session_context: string[] };
  assert.ok(s.used_tokens <= 1000 && s.sections.length >= 1, JSON.stringify(s));
  assert.equal(s.session_context.length, 1);
  assert.ok(textOf(r).startsWith('[session context] The user works on the pelican migration.'));
  assert.ok(textOf(r).length / 4 <= 1000 + 50);
  // Another session (another MCP session id) does not see it.
  const other = await h.call('svc_context_query', { query: 'pelican' }, { ...A, sessionId: 'other' });
  assert.deepEqual((other.structuredContent as { session_context: string[] }).session_context, []);
  assert.equal((await h.call('svc_context_query', { query: 'x', max_tokens: 10 }, A)).isError, true);
});

test('svc_inject honours its TTL', async () => {
  const query = () => h.call('svc_context_query', { query: 'anything' }, A);
  const contextIds = (r: Awaited<ReturnType<typeof query>>) => (r.structuredContent as { session_context: string[] }).session_context;
  await h.call('svc_inject', { text: 'short lived', ttl_seconds: 1 }, A);
  await h.call('svc_inject', { text: 'long lived', ttl_seconds: 60 }, A);
  assert.equal(contextIds(await query()).length, 2);
  // Expiry happens in Redis (real time): poll until the short-lived one is gone, within a bound.
  await eventually(
    async () => {
      const r = await query();
      assert.equal(contextIds(r).length, 1);
      assert.match(textOf(r), /long lived/);
      assert.doesNotMatch(textOf(r), /short lived/);
    },
    { timeout: 5_000, interval: 100, message: 'the 1 s context to expire' },
  );
  assert.equal((await h.call('svc_inject', { text: 'x', ttl_seconds: 0 }, A)).isError, true);
});

test('svc_ask returns passages with citations', async () => {
  await h.call('svc_upload_document', { name: 'ops.md', content: DOC }, A);
  const r = await h.call('svc_ask', { query: 'when does the pelican quota reset?' }, A);
  assert.match(textOf(r), /^\[1\] The monthly quota of the pelican plan resets on the first day\./);
  assert.match(textOf(r), /Sources:\n\[1\] ops\.md › Quotas/);
  const none = await h.call('svc_ask', { query: 'zeppelin' }, A);
  assert.deepEqual(none.structuredContent?.['passages'], []);
});

test(`svc_remember: at most ${MEMORY_LIMITS.bytesPerProject} bytes of memories per project, freed by expiry, summed again when the total is lost; svc_recall at the bound`, async () => {
  const big = (i: number) => `memory ${i} about pelicans ${'lorem ipsum dolor '.repeat(600)}`.slice(0, 10_000);
  assert.equal((await h.call('svc_remember', { text: big(0), ttl_seconds: 1 }, A)).isError, undefined);
  let stored = 1;
  let refusal = '';
  for (; stored < 200; stored++) {
    const r = await h.call('svc_remember', { text: big(stored) }, A);
    if (r.isError) {
      refusal = textOf(r);
      break;
    }
  }
  assert.match(refusal, new RegExp(`memories are full: ${stored} of at most 5000, \\d+ of at most ${MEMORY_LIMITS.bytesPerProject} bytes`));
  assert.ok(stored > 90 && stored < 110, `${stored} memories of 10,000 characters fill 1 MiB`);
  // The kept total lost (data written before it was kept): summed again, so still full.
  await redis.client.del('svc:kb:{proj-a}:mem-bytes');
  assert.equal((await h.call('svc_remember', { text: big(999) }, A)).isError, true);
  assert.equal((await h.call('svc_remember', { text: 'small note' }, B)).isError, undefined, 'another project is not held back');
  const found = await h.call('svc_recall', { query: 'pelicans memory', limit: 50 }, A);
  assert.equal((found.structuredContent?.['memories'] as unknown[]).length, 50);
  // The first memory expires; the next write sweeps it and its bytes are free again.
  await waitFor(async () => (await h.call('svc_remember', { text: big(1000) }, A)).isError === undefined, {
    timeout: 5_000,
    interval: 200,
    message: 'the expired memory to free its bytes',
  });
});

test('svc_remember and svc_recall: typed memories, type filter, expiry', async () => {
  await h.call('svc_remember', { text: 'We chose Redis Cluster for the quota counters.', type: 'decision' }, A);
  await h.call('svc_remember', { text: 'Redis latency is under a millisecond here.', type: 'fact' }, A);
  await h.call('svc_remember', { text: 'Redis gone soon', type: 'fact', ttl_seconds: 1 }, A);
  const all = await h.call('svc_recall', { query: 'redis' }, A);
  assert.equal((all.structuredContent?.['memories'] as unknown[]).length, 3);
  const decisions = await h.call('svc_recall', { query: 'redis', type: 'decision' }, A);
  assert.match(textOf(decisions), /Redis Cluster/);
  assert.equal((decisions.structuredContent?.['memories'] as unknown[]).length, 1);
  await waitFor(
    async () => ((await h.call('svc_recall', { query: 'redis' }, A)).structuredContent?.['memories'] as unknown[]).length === 2,
    {
      timeout: 5_000,
      interval: 100,
      message: 'the 1 s memory to expire, leaving 2',
    },
  );
  assert.equal((await h.call('svc_remember', { text: 'x', type: 'gossip' }, A)).isError, true);
});

test('svc_swarm_create and svc_claim: claim, held, renew, release by the holder only', async () => {
  const s = await h.call('svc_swarm_create', { name: 'builders', description: 'build agents' }, A);
  const id = s.structuredContent?.['id'] as string;
  assert.equal((await h.call('svc_swarm_create', { name: 'builders' }, A)).structuredContent?.['created'], false);
  const one = await h.call('svc_claim', { swarm: 'builders', resource: 'src/a.ts', agent: 'one' }, A);
  assert.equal(one.structuredContent?.['outcome'], 'acquired');
  const two = await h.call('svc_claim', { swarm: id, resource: 'src/a.ts', agent: 'two' }, A);
  assert.equal(two.isError, true);
  assert.equal(two.structuredContent?.['outcome'], 'held');
  assert.match(textOf(two), /held by one \(key of proj-a\) until \d{4}-/);
  assert.equal(
    (await h.call('svc_claim', { swarm: id, resource: 'src/a.ts', agent: 'two', action: 'release' }, A)).structuredContent?.['outcome'],
    'held',
  );
  assert.equal(
    (await h.call('svc_claim', { swarm: id, resource: 'src/a.ts', agent: 'one', action: 'renew', lease_seconds: 60 }, A))
      .structuredContent?.['outcome'],
    'renewed',
  );
  assert.equal(
    (await h.call('svc_claim', { swarm: id, resource: 'src/a.ts', agent: 'one', action: 'release' }, A)).structuredContent?.['outcome'],
    'released',
  );
  assert.equal(
    (await h.call('svc_claim', { swarm: id, resource: 'src/a.ts', agent: 'two' }, A)).structuredContent?.['outcome'],
    'acquired',
  );
  assert.equal((await h.call('svc_claim', { swarm: 'nope', resource: 'r' }, A)).isError, true);
  assert.equal((await h.call('svc_claim', { swarm: id, resource: 'r', lease_seconds: 0 }, A)).isError, true);
  assert.equal((await h.call('svc_swarm_create', { name: '../x' }, A)).isError, true);
});

test('a lease expires by itself', async () => {
  await h.call('svc_swarm_create', { name: 's' }, A);
  const claim = (agent: string) => h.call('svc_claim', { swarm: 's', resource: 'r', agent }, A);
  assert.equal(
    (await h.call('svc_claim', { swarm: 's', resource: 'r', agent: 'one', lease_seconds: 1 }, A)).structuredContent?.['outcome'],
    'acquired',
  );
  assert.equal((await claim('two')).structuredContent?.['outcome'], 'held');
  // A held claim changes nothing, so polling with it is safe; the lease lapses in Redis (real time).
  await waitFor(async () => (await claim('two')).structuredContent?.['outcome'] === 'acquired', {
    timeout: 5_000,
    interval: 100,
    message: 'the 1 s lease to lapse so another agent acquires it',
  });
});

test('concurrency: 50 parallel claims of one resource yield exactly one holder', async () => {
  await h.call('svc_swarm_create', { name: 'race' }, A);
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      h.call('svc_claim', { swarm: 'race', resource: 'the-file', agent: `agent-${i}` }, { ...A, sessionId: `s${i}` }),
    ),
  );
  const winners = results.filter((r) => r.structuredContent?.['outcome'] === 'acquired');
  assert.equal(winners.length, 1);
  const holder = winners[0]?.structuredContent?.['holder'];
  for (const r of results.filter((x) => x !== winners[0])) assert.equal(r.structuredContent?.['holder'], holder);
});

test('svc_htask_create: a hierarchy of at most four levels, listed with children', async () => {
  const root = await h.call('svc_htask_create', { title: 'Release 2.0' }, A);
  let parent = (root.structuredContent?.['task'] as { id: string }).id;
  for (const title of ['Backend', 'Quota service', 'Counter script']) {
    const r = await h.call('svc_htask_create', { title, parent }, A);
    parent = (r.structuredContent?.['task'] as { id: string; level: number }).id;
  }
  const sib = await h.call('svc_htask_create', { title: 'Docs', parent: (root.structuredContent?.['task'] as { id: string }).id }, A);
  assert.match(textOf(sib), /- Release 2\.0 .*\n {2}- Backend .*\n {4}- Quota service .*\n {6}- Counter script .*\n {2}- Docs .*<- new/);
  const deep = await h.call('svc_htask_create', { title: 'Too deep', parent }, A);
  assert.equal(deep.isError, true);
  assert.match(textOf(deep), /level 4, the deepest allowed/);
  assert.equal((await h.call('svc_htask_create', { title: 'x', parent: 'task_nope' }, A)).isError, true);
  assert.equal((await h.call('svc_htask_create', { title: '' }, A)).isError, true);
});

test('isolation: project B never reads or writes project A data, whatever ids it sends', async () => {
  await h.call('svc_upload_document', { name: 'ops.md', content: DOC }, A);
  await h.call('svc_remember', { text: 'pelican secret memory', type: 'fact' }, A);
  const swarm = (await h.call('svc_swarm_create', { name: 'a-swarm' }, A)).structuredContent?.['id'] as string;
  await h.call('svc_claim', { swarm, resource: 'r', agent: 'x' }, A);
  const task = ((await h.call('svc_htask_create', { title: 'A task' }, A)).structuredContent?.['task'] as { id: string }).id;
  await h.call('svc_inject', { text: 'pelican session' }, { ...B, sessionId: A.sessionId });

  for (const mode of ['keyword', 'semantic', 'hybrid'])
    assert.doesNotMatch(textOf(await h.call('svc_search', { query: 'pelican quota', mode }, B)), /pelican plan/);
  assert.doesNotMatch(textOf(await h.call('svc_ask', { query: 'pelican quota' }, B)), /pelican plan/);
  assert.doesNotMatch(textOf(await h.call('svc_context_query', { query: 'pelican quota' }, A)), /pelican session/);
  assert.equal((await h.call('svc_recall', { query: 'pelican' }, B)).structuredContent?.['memories'] instanceof Array, true);
  assert.deepEqual((await h.call('svc_recall', { query: 'pelican' }, B)).structuredContent?.['memories'], []);
  assert.equal((await h.call('svc_claim', { swarm, resource: 'r', action: 'release', agent: 'x' }, B)).isError, true);
  assert.equal((await h.call('svc_claim', { swarm: 'a-swarm', resource: 'r' }, B)).isError, true);
  assert.equal((await h.call('svc_htask_create', { title: 'child', parent: task }, B)).isError, true);
  // B's upload of the same name leaves A's document alone.
  await h.call('svc_upload_document', { name: 'ops.md', content: '# B\n\nbee' }, B);
  assert.match((await h.call('svc_search', { query: 'pelican' }, A)).content[0]?.text ?? '', /pelican/);
  // Every key written is under one project's hash tag, but the workspace's storage count (both are in "ws").
  const keys = await redis.client.keys('*');
  assert.ok(keys.length > 0 && keys.every((k) => /^svc:kb:\{proj-[ab]\}:/.test(k) || k === 'svc:kb-ws:{ws}:chars'), keys.join(' '));
});

test('svc_multi_project_query searches only the granted projects, labelled by project', async () => {
  for (const [p, word] of [
    ['t1', 'alpha'],
    ['t2', 'alpha beta'],
    ['t3', 'alpha secret'],
  ] as const)
    await h.call('svc_upload_document', { name: `${p}.md`, content: `# ${p}\n\n${word} text` }, caller(p));
  const bot = caller(null, { type: 'bot', serviceAccount: true, grantedProjects: ['t1', 't2'] });
  const r = await h.call('svc_multi_project_query', { query: 'alpha' }, bot);
  const res = r.structuredContent?.['results'] as { project: string }[];
  assert.deepEqual([...new Set(res.map((x) => x.project))].sort(), ['t1', 't2']);
  assert.match(r.content[0]?.text ?? '', /^\[t[12]\] /);
  assert.doesNotMatch(textOf(r), /secret/);
  const none = await h.call('svc_multi_project_query', { query: 'alpha' }, { ...bot, grantedProjects: [] });
  assert.match(textOf(none), /no project grant/);
});

test(`svc_multi_project_query searches at most ${MULTI_PROJECT_QUERY_MAX} projects a call; the projects argument chooses among the granted only`, async () => {
  const many = Array.from({ length: MULTI_PROJECT_QUERY_MAX + 5 }, (_, i) => `m${String(i).padStart(2, '0')}`);
  for (const p of [...many, 'other']) await h.call('svc_upload_document', { name: `${p}.md`, content: `# ${p}\n\nalpha text` }, caller(p));
  const bot = caller(null, { type: 'bot', serviceAccount: true, grantedProjects: many });
  const first = await h.call('svc_multi_project_query', { query: 'alpha', limit: 1 }, bot);
  assert.deepEqual(first.structuredContent?.['projects_searched'], many.slice(0, MULTI_PROJECT_QUERY_MAX));
  assert.equal(first.structuredContent?.['projects_not_searched'], 5);
  assert.match(textOf(first), new RegExp(`Searched ${MULTI_PROJECT_QUERY_MAX} of ${many.length} granted projects`));
  const chosen = await h.call('svc_multi_project_query', { query: 'alpha', projects: ['m29', 'other', 'm27'] }, bot);
  assert.deepEqual(chosen.structuredContent?.['projects_searched'], ['m27', 'm29'], 'a project not granted is never searched');
  const results = chosen.structuredContent?.['results'] as { project: string }[];
  assert.deepEqual([...new Set(results.map((r) => r.project))].sort(), ['m27', 'm29']);
  assert.match(textOf(await h.call('svc_multi_project_query', { query: 'alpha', projects: ['other'] }, bot)), /None of the projects named/);
  const tooMany = await h.call('svc_multi_project_query', { query: 'alpha', projects: many }, bot);
  assert.equal(tooMany.isError, true);
  assert.match(textOf(tooMany), /projects must NOT have more than 25 items/);
});

test('project tools refuse a caller without a project: the policy on the team endpoint, the tool itself anywhere', async () => {
  await assert.rejects(h.call('svc_search', { query: 'x' }, caller(null)), (e: Error) =>
    /only available on the project endpoint/.test(e.message),
  );
  const r = await h.call('svc_search', { query: 'x' }, caller(null), { endpoint: 'project' });
  assert.equal(r.isError, true);
  assert.match(textOf(r), /This tool works on one project/);
});

test('tools/call refuses what the policy refuses, with the gate, before the tool runs', async () => {
  const viewer = caller('proj-a', { role: 'VIEWER', plan: 'FREE', agents: false, surface: 'hosted' });
  await assert.rejects(
    h.call('svc_upload_document', { name: 'x.md', content: 'x' }, viewer),
    (e: unknown) => e instanceof SvcError && e.code === 'access_denied' && e.data['gate'] === 'level',
  );
  assert.deepEqual(await redis.client.keys('*'), [], 'nothing written');
  await assert.rejects(h.call('svc_nope', {}, A), /Unknown tool: svc_nope/);
});

test('storage quotas follow the plan: the project quota, then the workspace quota, named in the refusal', async () => {
  const { projectChars, workspaceChars } = STORAGE_QUOTAS.FREE;
  const doc = (i: number) => `# Part ${i}\n\n${'pelican quota words '.repeat(10_000)}`.slice(0, 200_000);
  const free = (p: string) => caller(p, { plan: 'FREE', workspace: 'ws-free' });
  for (let i = 0; i < projectChars / 200_000; i++)
    assert.equal((await h.call('svc_upload_document', { name: `${i}.md`, content: doc(i) }, free('q1'))).isError, undefined);
  const over = await h.call('svc_upload_document', { name: 'one-more.md', content: doc(9) }, free('q1'));
  assert.equal(over.isError, true);
  assert.match(textOf(over), /Project storage quota: .* quota of 1000000/);
  // Replacing a document by one of the same size still works at the quota.
  assert.equal((await h.call('svc_upload_document', { name: '0.md', content: doc(8) }, free('q1'))).isError, undefined);
  for (let i = 0; i < (workspaceChars - projectChars) / 200_000; i++)
    assert.equal((await h.call('svc_upload_document', { name: `${i}.md`, content: doc(i) }, free('q2'))).isError, undefined);
  const ws = await h.call('svc_upload_document', { name: 'x.md', content: doc(1) }, free('q3'));
  assert.equal(ws.isError, true);
  assert.match(textOf(ws), /Workspace storage quota: .* quota of 2000000/);
  assert.equal(Number(await redis.client.get('svc:kb-ws:{ws-free}:chars')), workspaceChars);
});

test('storage quotas hold under concurrent uploads', async () => {
  const { workspaceChars } = STORAGE_QUOTAS.FREE;
  const content = `# Part\n\n${'pelican '.repeat(25_000)}`.slice(0, 200_000);
  const results = await Promise.all(
    Array.from({ length: 16 }, (_, i) =>
      h.call('svc_upload_document', { name: `${i}.md`, content }, caller(`c${i % 4}`, { plan: 'FREE', workspace: 'ws-c' })),
    ),
  );
  const stored = results.filter((r) => r.isError === undefined).length;
  assert.ok(stored * 200_000 <= workspaceChars, `${stored} uploads stored`);
  assert.ok(results.some((r) => /storage quota/.test(textOf(r))));
  let total = 0;
  for (let p = 0; p < 4; p++) {
    const chars = Number(await redis.client.get(`svc:kb:{c${p}}:chars`));
    assert.ok(chars <= STORAGE_QUOTAS.FREE.projectChars);
    total += chars;
  }
  assert.equal(total, stored * 200_000);
  assert.equal(Number(await redis.client.get('svc:kb-ws:{ws-c}:chars')), total);
});
