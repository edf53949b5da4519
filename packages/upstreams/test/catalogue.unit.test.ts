/**
 * What discovery keeps of an upstream's tools/list (catalogue.ts), whatever the server lists:
 * every tool is kept or counted in the problems, once; what is kept stays within the bounds a
 * server is given (UPSTREAM_LIMITS: tools, bytes a tool, bytes of all its tools), in the server's
 * order; so a hostile server's list costs a project's tool set no more than the bounds say.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { checkTools } from '../src/catalogue.ts';
import { UPSTREAM_LIMITS } from '../src/limits.ts';

/** A listed tool: usually well-formed, of any size up to past the bound of one tool; sometimes not a tool at all. */
const listedTool = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      name: fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/),
      description: fc.nat({ max: Math.round(UPSTREAM_LIMITS.descriptorBytes * 1.2) }).map((n) => 'd'.repeat(n)),
      inputSchema: fc.constant({ type: 'object' }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ name: fc.constant('bad name!'), inputSchema: fc.constant({ type: 'object' }) }) },
  { weight: 1, arbitrary: fc.record({ name: fc.constant('no_schema'), inputSchema: fc.constant('x') }) },
  { weight: 1, arbitrary: fc.anything() },
);

/** The number of tools each problem says it left out. */
function leftOut(problems: string[]): number {
  return problems.reduce((sum, p) => sum + Number(/^(\d+) tool\(s\) left out/.exec(p)?.[1] ?? NaN), 0);
}

test('whatever a server lists, what is kept stays within its bounds, in its order, and the rest is counted', () => {
  fc.assert(
    fc.property(fc.array(listedTool, { maxLength: 160, size: 'max' }), (listed) => {
      const { tools, problems } = checkTools('notes', listed);
      const sizes = [...tools.values()].map((d) => Buffer.byteLength(JSON.stringify(d)));
      assert.ok(tools.size <= UPSTREAM_LIMITS.toolsPerUpstream);
      assert.ok(sizes.every((s) => s <= UPSTREAM_LIMITS.descriptorBytes));
      assert.ok(sizes.reduce((a, b) => a + b, 0) <= UPSTREAM_LIMITS.bytesPerUpstream);
      // Every listed tool is kept or left out, once (a name listed again is left out).
      assert.equal(tools.size + leftOut(problems), listed.length);
      const names = listed.map((t) => (t && typeof t === 'object' ? (t as { name?: unknown }).name : undefined));
      // In the server's order: the kept names are a subsequence of the listed ones.
      let at = 0;
      for (const n of tools.keys()) {
        while (at < names.length && names[at] !== n) at++;
        assert.ok(at++ < names.length, `${n} kept out of the server's order`);
      }
    }),
    { numRuns: 100 },
  );
});

test('a server listing more than its bytes: the tools past them are left out, and the problem says so', () => {
  const big = (i: number) => ({
    name: `t${i}`,
    description: 'd'.repeat(UPSTREAM_LIMITS.descriptorBytes - 200),
    inputSchema: { type: 'object' },
  });
  const fit = Math.floor(UPSTREAM_LIMITS.bytesPerUpstream / UPSTREAM_LIMITS.descriptorBytes);
  const { tools, problems } = checkTools(
    'notes',
    Array.from({ length: fit + 5 }, (_, i) => big(i)),
  );
  assert.equal(tools.size, fit);
  assert.deepEqual(problems, [`5 tool(s) left out: past ${UPSTREAM_LIMITS.bytesPerUpstream} bytes of tools for one server`]);
});
