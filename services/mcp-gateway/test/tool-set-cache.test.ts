/**
 * A gateway's cache of project tool sets (upstreams/tool-sets.ts) holds at most its budget of
 * upstream tools' bytes, the least recently used sets going first, so projects whose servers list
 * large tools cannot make a replica hold more; and each workspace at most its share of sets and
 * bytes, its own least recently used going first, so one workspace's many projects never push out
 * another's sets (docs/security.md "Shared pools, per-tenant shares").
 * Real upstream servers registered on a real Redis; the store's reads are counted to see which
 * sets were kept.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createLogger } from '@svc/logger';
import { createUpstreams } from '@svc/upstreams';
import { startRedis, type RedisFixture } from '@svc/testkit';
import { ToolRegistry } from '../src/tools/registry.ts';
import { projectToolSets, type ToolSetDeps } from '../src/upstreams/tool-sets.ts';
import { startPlainUpstream, testConfig } from './support.ts';

let redis: RedisFixture;
let server: Awaited<ReturnType<typeof startPlainUpstream>>;
/** Each project's upstream lists ten tools of about 2 KB: about 20 KB of rows a project. */
const TOOLS = Array.from({ length: 10 }, (_, i) => ({ name: `t${i}`, description: 'd'.repeat(2_000), inputSchema: { type: 'object' } }));
const PROJECTS = ['p1', 'p2', 'p3', 'p4', 'p5'];

before(async () => {
  redis = await startRedis();
  server = await startPlainUpstream(TOOLS);
});
after(async () => {
  await server.close();
  await redis.stop();
});

/** A cache of tool sets over `upstreams`, with the projects it read, in order. */
function countedSets(upstreams: ReturnType<typeof createUpstreams>, bounds: Pick<ToolSetDeps, 'bytes' | 'perWorkspace'>) {
  const reads: string[] = [];
  const counted = { ...upstreams, read: (project: string) => (reads.push(project), upstreams.read(project)) };
  const sets = projectToolSets({
    registry: new ToolRegistry([]),
    upstreams: counted,
    logger: createLogger({ service: 'mcp-gateway', level: 'error', silent: true }),
    flag: async () => {},
    forward: () => async () => ({ content: [] }),
    ...bounds,
  });
  return { sets, reads };
}

test('the sets held stay within the budget of bytes; the least recently used are read again', async () => {
  const config = testConfig(redis.url, 1, { UPSTREAM_ALLOWED_PRIVATE: '127.0.0.1/32' });
  const upstreams = createUpstreams({
    redis: redis.client,
    pepper: config.keyPepper,
    issuer: config.baseUrl,
    allowedPrivate: config.upstreamAllowedPrivate,
  });
  for (const project of PROJECTS)
    await upstreams.register({ project, workspace: 'w', name: 'notes', url: server.url, addedBy: 'ada@example.com' });
  const one = await upstreams.read('p1');
  assert.equal(one.tools.length, TOOLS.length);
  const perSet = one.toolBytes;

  // Room for two sets and a half: the third read pushes out the least recently used.
  const { sets, reads } = countedSets(upstreams, { bytes: Math.floor(perSet * 2.5) });
  for (const project of PROJECTS) assert.equal((await sets.get(project, 'w')).get('notes__t0')?.def.name, 'notes__t0');
  assert.deepEqual(reads, PROJECTS, 'each set read once');
  // The two most recently used are held; p3 went when p5 came.
  await sets.get('p4', 'w');
  await sets.get('p5', 'w');
  assert.deepEqual(reads.slice(PROJECTS.length), [], 'p4 and p5 held');
  await sets.get('p3', 'w');
  assert.deepEqual(reads.slice(PROJECTS.length), ['p3'], 'p3 read again');
  // p3's read pushed out p4, the least recently used then; p5 is still held.
  await sets.get('p5', 'w');
  await sets.get('p4', 'w');
  assert.deepEqual(reads.slice(PROJECTS.length), ['p3', 'p4']);
});

test("a workspace past its share of sets or bytes drops its own least recently used, never another workspace's", async () => {
  const config = testConfig(redis.url, 1, { UPSTREAM_ALLOWED_PRIVATE: '127.0.0.1/32' });
  await redis.flush();
  const upstreams = createUpstreams({
    redis: redis.client,
    pepper: config.keyPepper,
    issuer: config.baseUrl,
    allowedPrivate: config.upstreamAllowedPrivate,
  });
  const churn = Array.from({ length: 8 }, (_, i) => `c${i}`);
  for (const project of ['victim', ...churn])
    await upstreams.register({
      project,
      workspace: project === 'victim' ? 'v' : 'hostile',
      name: 'notes',
      url: server.url,
      addedBy: 'ada@example.com',
    });
  const perSet = (await upstreams.read('victim')).toolBytes;
  // The whole cache has room for three sets and a half; one workspace's share, for two and a half sets' bytes or three sets.
  const { sets, reads } = countedSets(upstreams, {
    bytes: Math.floor(perSet * 3.5),
    perWorkspace: { projects: 3, bytes: Math.floor(perSet * 2.5) },
  });
  await sets.get('victim', 'v');
  for (const project of churn) await sets.get(project, 'hostile');
  await sets.get('victim', 'v');
  assert.equal(reads.filter((p) => p === 'victim').length, 1, "the victim's set was held through the churn");
  // The hostile workspace holds its two most recent sets (its bytes' share): c6 and c7.
  reads.length = 0;
  await sets.get('c7', 'hostile');
  await sets.get('c6', 'hostile');
  assert.deepEqual(reads, [], 'its two most recent sets held');
  await sets.get('c0', 'hostile');
  assert.deepEqual(reads, ['c0'], 'its oldest was dropped and is read again');
});
