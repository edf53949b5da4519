/** The bounded JSON reader (docs/security.md "Bounds"): the same values as JSON.parse inside the bounds, a named refusal outside. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { JSON_BOUNDS, JsonBoundsError, JsonSyntaxError, jsonBoundBroken, parseJson } from '../src/json.ts';

/** Depth of a parsed value as the reader counts it: each array or object is one level. */
function depthOf(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  return 1 + Math.max(0, ...Object.values(v as Record<string, unknown>).map(depthOf));
}

test('inside the bounds it reads exactly what JSON.parse reads', () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 8 }), (v) => {
      const text = JSON.stringify(v);
      assert.deepEqual(parseJson(text), JSON.parse(text));
    }),
    { numRuns: 2000 },
  );
});

test('a body nested one level past the bound is refused naming the bound, however it mixes arrays and objects', () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom('[', '{"k":'), { minLength: 1, maxLength: 5 }),
      fc.integer({ min: 1, max: 5_000 }),
      (kinds, extra) => {
        const depth = JSON_BOUNDS.maxDepth + extra;
        let open = '';
        let close = '';
        for (let i = 0; i < depth; i++) {
          const k = kinds[i % kinds.length]!;
          open += k;
          close = (k === '[' ? ']' : '}') + close;
        }
        const err = jsonBoundBroken(`${open}1${close}`);
        assert.ok(err instanceof JsonBoundsError);
        assert.equal(err.bound, 'depth');
        assert.match(err.message, /nested more than 64 levels/);
      },
    ),
    { numRuns: 300 },
  );
});

test('exactly at the depth bound is read; brackets and escaped quotes inside strings do not count', () => {
  const atBound = `${'['.repeat(JSON_BOUNDS.maxDepth)}${']'.repeat(JSON_BOUNDS.maxDepth)}`;
  assert.equal(depthOf(parseJson(atBound)), JSON_BOUNDS.maxDepth);
  const inString = JSON.stringify({ s: `\\"${'['.repeat(10_000)}${','.repeat(20_000)}` });
  assert.deepEqual(parseJson(inString), JSON.parse(inString));
});

test('more values than the bound (elements, members or one key repeated) are refused', () => {
  for (const text of [
    `[${Array(JSON_BOUNDS.maxValues + 1)
      .fill(0)
      .join(',')}]`,
    `{${Array(JSON_BOUNDS.maxValues + 1)
      .fill('"a":1')
      .join(',')}}`,
    `[${Array(JSON_BOUNDS.maxValues / 2 + 1)
      .fill('[]')
      .join(',')}]`,
  ]) {
    const err = jsonBoundBroken(text);
    assert.ok(err instanceof JsonBoundsError, text.slice(0, 40));
    assert.equal(err.bound, 'values');
  }
  assert.equal(
    jsonBoundBroken(
      `[${Array(JSON_BOUNDS.maxValues - 1)
        .fill(0)
        .join(',')}]`,
    ),
    null,
  );
});

test('text that is not JSON is a syntax error, not a bound', () => {
  for (const text of ['', '{', '[1,]', '{"a":1', ']]]]', 'nul']) assert.throws(() => parseJson(text), JsonSyntaxError);
});

test('scanning costs time linear in the body: 512 KiB of brackets inside a string is read in milliseconds', () => {
  const text = JSON.stringify('['.repeat(512 * 1024));
  // CPU time of this thread, which a busy machine does not stretch as it does wall time.
  const start = process.threadCpuUsage();
  jsonBoundBroken(text);
  const { user, system } = process.threadCpuUsage(start);
  const ms = (user + system) / 1000;
  assert.ok(ms < 50, `one scan of the largest body took ${ms.toFixed(1)} ms of CPU, past the 50 ms loop budget`);
});
