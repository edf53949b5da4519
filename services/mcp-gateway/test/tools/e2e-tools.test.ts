/** The knowledge tools through the running gateway: MCP and REST, policy gates, isolation, OpenAPI. */
import assert from 'node:assert/strict';
import SwaggerParser from '@apidevtools/swagger-parser';
import { after, before, test } from 'node:test';
import { outsideLoopBudget } from '@svc/testkit';
import { call, post, seed, startFixture, type GatewayFixture, type Seeded } from '../support.ts';

let fx: GatewayFixture;
let pro: Seeded;
let other: Seeded;
const DOC =
  '# Rotation\n\nRotate keys every ninety days and revoke the old key.\n\n# Quotas\n\nThe monthly quota of the pelican plan resets on the first day.';

const mcp = (s: { project: string; key: string }, name: string, args: Record<string, unknown>, headers: Record<string, string> = {}) =>
  post(fx.url, `/mcp/${s.project}`, call(name, args), { 'X-API-Key': s.key, ...headers });
const rest = (s: { project: string; key: string }, name: string, args: unknown) =>
  post(fx.url, `/api/v1/projects/${s.project}/tools/${name}`, args, { 'X-API-Key': s.key });

before(async () => {
  fx = await startFixture();
  pro = await seed(fx.accounts, { plan: 'PRO', level: 'EDITOR' });
  other = await seed(fx.accounts, { plan: 'PRO', level: 'EDITOR' });
});
after(() => fx.close());

test('MCP: upload then keyword and hybrid search, best section in content[0]', async () => {
  const up = await mcp(pro, 'svc_upload_document', { name: 'ops.md', content: DOC });
  assert.equal(up.body.result.isError, undefined, up.text);
  const kw = await mcp(pro, 'svc_search', { query: 'pelican quota', mode: 'keyword' });
  assert.match(kw.body.result.content[0].text, /pelican/);
  const hy = await mcp(pro, 'svc_search', { query: 'how often should keys be rotated', mode: 'hybrid' });
  assert.match(hy.body.result.content[0].text, /ninety/);
});

test('MCP: invalid arguments are isError results that name the problem', async () => {
  const r = await mcp(pro, 'svc_search', { query: 'x', mode: 'fuzzy', extra: true });
  assert.equal(r.body.result.isError, true);
  assert.match(r.body.result.content[0].text, /unknown argument "extra"/);
});

test('REST: the same tools with rate-limit headers; errors in the REST shape', async () => {
  const r = await rest(pro, 'svc_search', { query: 'pelican', mode: 'keyword' });
  assert.equal(r.status, 200, r.text);
  assert.match(r.body.content[0].text, /pelican/);
  assert.match(r.headers.get('x-ratelimit-remaining') ?? '', /^\d+$/);
  const ask = await rest(pro, 'svc_ask', { query: 'when does the pelican quota reset' });
  assert.match(ask.body.content[0].text, /Sources:\n\[1\] ops\.md › Quotas/);
  const bad = await rest(pro, 'svc_ask', { nope: 1 });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error.message, /unknown argument "nope"/);
  const noauth = await post(fx.url, `/api/v1/projects/${pro.project}/tools/svc_search`, { query: 'x' });
  assert.equal(noauth.status, 401);
  assert.equal(noauth.body.error.message, 'Missing authentication');
});

test('policy gates: VIEWER cannot upload; FREE cannot search semantically; memory write needs its surface', async () => {
  const viewer = await seed(fx.accounts, { plan: 'FREE', level: 'VIEWER' });
  const up = await mcp(viewer, 'svc_upload_document', { name: 'x.md', content: 'x' });
  assert.ok(up.body.error || up.body.result?.isError, up.text);
  const sem = await mcp(viewer, 'svc_search', { query: 'rotation', mode: 'semantic' });
  assert.ok(sem.body.error || sem.body.result?.isError, sem.text);
  const kw = await mcp(viewer, 'svc_search', { query: 'rotation', mode: 'keyword' });
  assert.ok(kw.body.result, kw.text);
  const agents = await seed(fx.accounts, { plan: 'PRO', level: 'EDITOR', agents: true });
  const hosted = await mcp(agents, 'svc_remember', { text: 'x', type: 'fact' });
  assert.ok(hosted.body.error, hosted.text);
  const companion = await mcp(
    agents,
    'svc_remember',
    { text: 'we use ninety day rotation', type: 'decision' },
    { 'X-Svc-Surface': 'companion' },
  );
  assert.equal(companion.body.result?.isError, undefined, companion.text);
  const recalled = await mcp(agents, 'svc_recall', { query: 'rotation' });
  assert.match(recalled.body.result.content[0].text, /ninety day rotation/);
});

test('isolation: another project never sees these documents, over MCP or REST', async () => {
  const r = await mcp(other, 'svc_search', { query: 'monthly quota plan resets', mode: 'hybrid' });
  assert.doesNotMatch(JSON.stringify(r.body), /pelican/);
  const r2 = await rest(other, 'svc_context_query', { query: 'pelican quota' });
  assert.doesNotMatch(JSON.stringify(r2.body), /pelican plan/);
  const cross = await post(fx.url, `/api/v1/projects/${pro.project}/tools/svc_search`, { query: 'pelican' }, { 'X-API-Key': other.key });
  assert.ok(cross.status >= 400, cross.text);
});

test('swarms and leases over MCP on a TEAM plan with an ADMIN key', async () => {
  const team = await seed(fx.accounts, { plan: 'TEAM', level: 'ADMIN' });
  const sw = await mcp(team, 'svc_swarm_create', { name: 'crew' });
  assert.equal(sw.body.result.structuredContent.created, true, sw.text);
  const claims = await Promise.all(
    Array.from({ length: 20 }, (_, i) => mcp(team, 'svc_claim', { swarm: 'crew', resource: 'r', agent: `a${i}` })),
  );
  assert.equal(claims.filter((c) => c.body.result?.structuredContent?.outcome === 'acquired').length, 1);
  const task = await mcp(team, 'svc_htask_create', { title: 'top' }, { 'X-Svc-Surface': 'orchestrator' });
  assert.equal(task.body.result.structuredContent.task.level, 1, task.text);
});

test('team endpoint: a service account searches only its granted projects', async () => {
  const owner = await seed(fx.accounts, { plan: 'TEAM', level: 'ADMIN' });
  const p2 = `${owner.project}-b`;
  await fx.accounts.workspaces.createProject({ slug: p2, workspace: owner.workspace });
  await mcp(owner, 'svc_upload_document', { name: 'a.md', content: '# Alpha\n\nheron migration notes' });
  const k2 = await fx.accounts.keys.createProjectKey({ project: p2, workspace: owner.workspace, level: 'EDITOR', name: 'b' });
  await mcp({ project: p2, key: k2.key }, 'svc_upload_document', { name: 'b.md', content: '# Beta\n\nheron secret notes' });
  const { bot, key } = await fx.accounts.bots.create({ workspace: owner.workspace, name: 'ci' });
  await fx.accounts.bots.grant(bot.id, owner.project, 'VIEWER');
  const r = await post(fx.url, `/mcp/team/${owner.workspace}`, call('svc_multi_project_query', { query: 'heron notes' }), {
    'X-API-Key': key.key,
  });
  assert.ok(r.body.result, r.text);
  assert.match(r.body.result.content[0].text, new RegExp(`^\\[${owner.project}\\]`));
  assert.doesNotMatch(JSON.stringify(r.body), /secret/);
  const viaRest = await post(
    fx.url,
    `/api/v1/teams/${owner.workspace}/tools/svc_multi_project_query`,
    { query: 'heron' },
    { 'X-API-Key': key.key },
  );
  assert.equal(viaRest.status, 200, viaRest.text);
  assert.doesNotMatch(viaRest.text, /secret/);
});

test('OpenAPI 3.1 document: one path per tool, schemas from the tools, error shape, security schemes, licence', async () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the served document: its shape is what the assertions check
  const doc = (await (await fetch(`${fx.url}/api/v1/openapi.json`)).json()) as any;
  assert.match(doc.openapi, /^3\.1/);
  // The repository's LICENSE, by its SPDX identifier.
  assert.deepEqual(doc.info.license, { name: 'Apache-2.0', identifier: 'Apache-2.0' });
  const search = doc.paths['/api/v1/projects/{slug}/tools/svc_search'].post;
  assert.deepEqual(search.requestBody.content['application/json'].schema.properties.mode.enum, ['keyword', 'semantic', 'hybrid']);
  for (const s of ['400', '401', '403', '404', '429']) assert.ok(search.responses[s], s);
  assert.ok(doc.paths['/api/v1/teams/{team}/tools/svc_multi_project_query']);
  assert.equal(doc.components.securitySchemes.ApiKey.name, 'X-API-Key');
  assert.equal(doc.components.securitySchemes.Bearer.scheme, 'bearer');
  assert.ok(doc.paths['/api/v1/me'].get && doc.paths['/api/v1/projects'].get && doc.paths['/api/v1/me/key'].delete);
  // A validator we did not write accepts the document (OpenAPI 3.1 schema and references). Its
  // compiling the OpenAPI meta-schema is the test's work, not a request's.
  await outsideLoopBudget(() => SwaggerParser.validate(structuredClone(doc)));
});
