/**
 * svc_help on a project with upstream tools (tools/svc-help.ts, upstreams/tool-sets.ts): whatever
 * titles and descriptions the upstreams give their tools (any size, any characters, lines), every
 * summary svc_help lists is one line of at most 120 characters, never half a character; and the
 * answers it keeps for callers stay within their count and bytes, however large each answer is.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { PLANS, SURFACES, type Role } from '@svc/policy';
import type { ProjectUpstreams, Upstream, UpstreamTool } from '@svc/upstreams';
import { keptAnswers, svcHelp } from '../src/tools/svc-help.ts';
import type { ToolCaller } from '../src/tools/types.ts';
import { upstreamToolsOf } from '../src/upstreams/tool-sets.ts';

const SUMMARY_LENGTH = 120;
/** Kept answers here: few, and fewer bytes than a handful of large answers. */
const LIMITS = { count: 3, bytes: 100_000 };

const upstream = (name: string): Upstream => ({
  name,
  project: 'p',
  url: `https://${name}.test/mcp`,
  timeoutMs: 10_000,
  credential: null,
  era: 'modern',
  protocolVersion: '2026-07-28',
  addedAt: 0,
  addedBy: 'ada',
  refreshedAt: 0,
  problem: null,
});

/** Text of any size: plain, any code point (pairs of UTF-16 units included), or lines. */
const text = (max: number) =>
  fc.oneof(
    fc.string({ maxLength: max, size: 'max' }),
    fc.string({ unit: 'binary', maxLength: max, size: 'max' }),
    fc.array(fc.string({ maxLength: 200, size: 'max' }), { maxLength: 20 }).map((lines) => lines.join('\n')),
  );

/** An upstream tool's row: offered, with a title or not, and a description, each of any size. */
const row = fc.record({
  upstream: fc.constantFrom('notes', 'files'),
  name: fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/),
  title: fc.option(text(3_000), { nil: undefined }),
  description: text(5_000),
  level: fc.constantFrom('VIEWER', 'EDITOR', 'ADMIN'),
});

type Row = typeof row extends fc.Arbitrary<infer R> ? R : never;

/** A project's read of its two upstreams, their rows all offered. */
const readOf = (rows: Row[]): ProjectUpstreams => ({
  upstreams: [upstream('notes'), upstream('files')],
  tools: rows.map((r): UpstreamTool => ({
    upstream: r.upstream,
    name: r.name,
    descriptor: { description: r.description, inputSchema: { type: 'object' }, ...(r.title === undefined ? {} : { title: r.title }) },
    pending: null,
    policy: { level: r.level, plan: 'FREE', surfaces: [...SURFACES], agents: false, countsAsQuery: true, enabled: true },
    state: 'listed',
    firstSeen: 0,
  })),
  builtins: [],
  toolBytes: 0,
});

const toolSet = fc.array(row, { maxLength: 150, size: 'max' }).map(readOf);

const caller = fc.record({
  role: fc.constantFrom<Role>('VIEWER', 'EDITOR', 'ADMIN'),
  plan: fc.constantFrom(...PLANS),
  surface: fc.constantFrom(...SURFACES),
  label: fc.constantFrom('ada@example.com', 'bob@example.com', 'svc_ab12 (ci)'),
});

const callerOf = (c: { role: Role; plan: ToolCaller['plan']; surface: ToolCaller['surface']; label: string }): ToolCaller => ({
  type: 'user',
  id: c.label,
  label: c.label,
  role: c.role,
  serviceAccount: false,
  plan: c.plan,
  agents: false,
  surface: c.surface,
  project: 'p',
  workspace: 'w',
  grantedProjects: [],
  sessionId: 's',
  origin: { source: 'test', requestId: 'r' },
  clientId: 'c',
});

const largeSet = readOf(
  Array.from({ length: 150 }, (_, i) => ({
    upstream: 'notes',
    name: `t${i}`,
    title: 't'.repeat(2_500),
    description: 'd',
    level: 'VIEWER' as const,
  })),
);

test('every summary is one line within its bound, and the answers kept stay within their count and bytes', async () => {
  const reached = { count: 0, bytes: 0 };
  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(toolSet, caller), { minLength: 1, maxLength: 6 }), async (calls) => {
      const answers = keptAnswers(LIMITS);
      const help = svcHelp(() => [], answers);
      for (const [read, c] of calls) {
        const upstreamTools = upstreamToolsOf(read, () => async () => ({ content: [] }));
        for (const { policy } of upstreamTools.values()) {
          assert.ok(policy.summary.length <= SUMMARY_LENGTH, `a summary of ${policy.summary.length} characters`);
          assert.ok(!/[\r\n]/.test(policy.summary), 'a summary of more than one line');
          assert.ok(policy.summary.isWellFormed(), 'half a character');
        }
        const result = await help.call({}, callerOf(c), { upstreamTools });
        const listed = result.structuredContent?.['available'] as { name: string; summary: string }[];
        for (const t of listed) if (t.name.includes('__')) assert.ok(t.summary.length <= SUMMARY_LENGTH);
        assert.ok(answers.count <= LIMITS.count, `${answers.count} answers kept`);
        assert.ok(answers.bytes <= LIMITS.bytes, `${answers.bytes} bytes of answers kept`);
        reached.count = Math.max(reached.count, answers.count);
        reached.bytes = Math.max(reached.bytes, answers.bytes);
      }
    }),
    {
      numRuns: 30,
      // A failure's shrinking replays whole tool sets: it stops in time to report what it has.
      plugins: [fc.interruptAfterTimeLimit(20_000)],
      // 150 tools of 2,500-character titles asked by four callers: more than the bytes kept.
      examples: [
        [
          (['VIEWER', 'EDITOR', 'ADMIN', 'VIEWER'] as const).map(
            (role, i) => [largeSet, { role, plan: 'FREE', surface: 'hosted', label: `c${i}` }] as const,
          ),
        ],
      ],
    },
  );
  // The answers kept met both bounds, not only stayed under them.
  assert.equal(reached.count, LIMITS.count);
  assert.ok(reached.bytes > LIMITS.bytes * 0.8, `at most ${reached.bytes} bytes kept`);
});
