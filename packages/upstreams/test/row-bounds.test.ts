/**
 * What svc keeps of an upstream's tools across refreshes (catalogue.ts mergeTools, written by
 * store.ts): whatever the server lists at each refresh (names new or seen before, any size, renamed,
 * gone and back) and whatever its admins turn on or accept, the rows kept in Redis for it stay
 * within UPSTREAM_LIMITS.rowsPerUpstream and their descriptors, changes waiting included, within
 * rowBytesPerUpstream; only `missing` rows are deleted, and every tool the server lists now has its
 * row unless the upstream is flagged for passing the bytes. The real merge and store, on a real Redis;
 * the server is a client answering what the test lists (UpstreamsOptions.client).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { K } from '@svc/accounts';
import { startRedis, type RedisFixture } from '@svc/testkit';
import { checkTools } from '../src/catalogue.ts';
import { UpstreamClient } from '../src/client.ts';
import { UPSTREAM_LIMITS } from '../src/limits.ts';
import type { UpstreamTool } from '../src/types.ts';
import { createUpstreams } from '../src/upstreams.ts';

/** The most a row holds besides its descriptors (names, policy, state, times): the bound of the whole hash allows this a row. */
const ROW_ROOM = 512;

/** A server whose tools/list answers whatever the test last set. */
class ListedClient extends UpstreamClient {
  tools: unknown[] = [];
  override async handshake() {
    return { era: 'modern' as const, version: '2026-07-28' };
  }
  override async listTools() {
    return this.tools;
  }
}

let redis: RedisFixture;
before(async () => {
  redis = await startRedis();
});
after(async () => {
  await redis.stop();
});

interface Listed {
  name: string;
  size: number;
  variant: number;
}

const descriptorOf = (t: Listed) => ({
  name: t.name,
  description: `${t.variant}`.padEnd(t.size, 'd'),
  inputSchema: { type: 'object' },
  ...(t.variant === 2 ? { annotations: { readOnlyHint: true } } : {}),
});

/** A listed tool: a name seen before or a fresh one; small, or large up to past one tool's bound. */
const listedTool = fc.record({
  name: fc.oneof(
    fc.nat(39).map((i) => `p${i}`),
    fc.stringMatching(/^[a-z][a-z0-9_]{2,14}$/),
  ),
  size: fc.oneof(fc.nat(300), fc.integer({ min: 2_000, max: UPSTREAM_LIMITS.descriptorBytes + 500 })),
  variant: fc.nat(2),
});

/** One step: the server lists anew, renames or drops some of its tools, lists an earlier list again; an admin turns on or accepts. */
const step = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('list' as const), tools: fc.array(listedTool, { maxLength: 120, size: 'max' }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rename' as const), count: fc.nat(60), tag: fc.nat(1_000) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('drop' as const), count: fc.nat(60) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('again' as const), back: fc.nat(10) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('enable' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('accept' as const), pick: fc.nat() }) },
);
type Step = typeof step extends fc.Arbitrary<infer S> ? S : never;

/** A flood: 100 fresh names at each refresh (what grew a hash to 10,000 rows). */
const flood = (round: number): Step => ({
  kind: 'list',
  tools: Array.from({ length: 100 }, (_, i) => ({ name: `r${round}_${i}`, size: 200, variant: 0 })),
});

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

test('whatever the server lists and its admins do, the rows kept of it stay within their count and bytes', async () => {
  const client = new ListedClient({ allowedPrivate: [] });
  const upstreams = createUpstreams({
    redis: redis.client,
    pepper: 'p'.repeat(32),
    issuer: 'https://svc.test',
    allowedPrivate: [],
    client,
  });
  let run = 0;
  const reached = { rows: 0, bytes: 0 };

  async function rows(project: string): Promise<{ rows: UpstreamTool[]; stored: number }> {
    const all = await redis.client.hgetall(K.projectUpstreams(project));
    const fields = Object.keys(all).filter((f) => f.startsWith('t:notes:'));
    return {
      rows: fields.map((f) => JSON.parse(all[f]!) as UpstreamTool),
      stored: fields.reduce((sum, f) => sum + Buffer.byteLength(all[f]!), 0),
    };
  }

  async function check(project: string, listedNow: unknown[]): Promise<void> {
    const { rows: kept, stored } = await rows(project);
    const bytes = kept.reduce((sum, r) => sum + bytesOf(r.descriptor) + (r.pending ? bytesOf(r.pending) : 0), 0);
    assert.ok(kept.length <= UPSTREAM_LIMITS.rowsPerUpstream, `${kept.length} rows kept`);
    assert.ok(bytes <= UPSTREAM_LIMITS.rowBytesPerUpstream, `${bytes} bytes of descriptors kept`);
    assert.ok(stored <= UPSTREAM_LIMITS.rowBytesPerUpstream + kept.length * ROW_ROOM, `${stored} bytes stored`);
    reached.rows = Math.max(reached.rows, kept.length);
    reached.bytes = Math.max(reached.bytes, bytes);
    // Only missing rows go: every tool listed now has its row, unless the bytes left it out (and said so).
    const view = await upstreams.view(project, 'notes');
    if (view?.upstream.problem?.includes('bytes of rows')) return;
    const byName = new Map(kept.map((r) => [r.name, r]));
    for (const name of checkTools('notes', listedNow).tools.keys())
      assert.notEqual(
        byName.get(name)?.state ?? 'gone',
        'missing',
        `${name} is listed but its row is ${byName.get(name)?.state ?? 'gone'}`,
      );
  }

  async function play(steps: Step[]): Promise<void> {
    const project = `p${++run}`;
    const lists: Listed[][] = [[]];
    let current: Listed[] = [];
    client.tools = [];
    await upstreams.register({ project, workspace: 'w', name: 'notes', url: 'https://notes.test/mcp', addedBy: 'ada@example.com' });
    for (const s of steps) {
      if (s.kind === 'enable' || s.kind === 'accept') {
        const state = s.kind === 'enable' ? 'new' : 'changed';
        const candidates = (await rows(project)).rows.filter((r) => r.state === state);
        const row = candidates[s.pick % Math.max(1, candidates.length)];
        if (row) await upstreams.setTool(project, 'notes', row.name, s.kind === 'enable' ? { enabled: true } : { acceptChange: true });
      } else {
        if (s.kind === 'list') current = s.tools;
        else if (s.kind === 'rename') current = current.map((t, i) => (i < s.count ? { ...t, name: `${t.name}_${s.tag}` } : t));
        else if (s.kind === 'drop') current = current.slice(s.count);
        else current = lists[Math.max(0, lists.length - 1 - s.back)]!;
        lists.push(current);
        client.tools = current.map(descriptorOf);
        await upstreams.refresh(project, 'w', 'notes');
      }
      await check(project, client.tools);
    }
  }

  await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12, size: 'max' }), play), {
    numRuns: 25,
    // A failure's shrinking replays whole sequences: it stops in time to report what it has.
    plugins: [fc.interruptAfterTimeLimit(90_000)],
    // The flood, and a server at its bytes whose tools all change and come back: both bounds are met.
    examples: [
      [[flood(1), flood(2), flood(3), flood(4), flood(5)]],
      [
        [
          { kind: 'list', tools: Array.from({ length: 60 }, (_, i) => ({ name: `p${i}`, size: 4_200, variant: 0 })) },
          ...Array.from({ length: 8 }, (): Step => ({ kind: 'enable', pick: 0 })),
          { kind: 'list', tools: Array.from({ length: 60 }, (_, i) => ({ name: `p${i}`, size: 300, variant: 1 })) },
          { kind: 'list', tools: Array.from({ length: 60 }, (_, i) => ({ name: `q${i}`, size: 4_200, variant: 1 })) },
          { kind: 'again', back: 2 },
        ],
      ],
    ],
  });
  // The runs met the bounds, not only stayed under them.
  assert.equal(reached.rows, UPSTREAM_LIMITS.rowsPerUpstream);
  assert.ok(reached.bytes > UPSTREAM_LIMITS.rowBytesPerUpstream * 0.9, `at most ${reached.bytes} bytes reached`);
});
