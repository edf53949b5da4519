/**
 * Names (docs/management.md "Names"), over a table of character classes: every character of a
 * refused class is refused wherever it stands in a name; every character of an accepted class is
 * accepted; look-alikes of one name share its skeleton.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nameProblem, nameSkeleton, withoutHiddenCharacters } from '../src/names.ts';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

const CLASSES: { name: string; codes: number[]; refused: RegExp | null }[] = [
  { name: 'C0 controls (TAB, LF, CR, ESC among them)', codes: range(0x00, 0x1f), refused: /control characters/ },
  { name: 'DEL and C1 controls (8-bit CSI among them)', codes: range(0x7f, 0x9f), refused: /control characters/ },
  {
    name: 'no-break and other unusual spaces',
    codes: [0xa0, 0x2000, 0x2007, 0x2009, 0x200a, 0x202f, 0x205f, 0x3000, 0x2800],
    refused: /invisible/,
  },
  { name: 'zero-width characters and joiners', codes: [0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0x034f, 0x00ad], refused: /invisible/ },
  {
    name: 'bidi marks, embeddings, overrides, isolates',
    codes: [0x061c, 0x200e, 0x200f, ...range(0x202a, 0x202e), ...range(0x2066, 0x2069)],
    refused: /invisible/,
  },
  { name: 'fillers, selectors, tags', codes: [0x115f, 0x1160, 0x3164, 0xffa0, 0x180e, 0xfe0f, 0xe0041], refused: /invisible/ },
  { name: 'line and paragraph separators', codes: [0x2028, 0x2029], refused: /invisible/ },
  { name: 'printable ASCII', codes: range(0x21, 0x7e), refused: null },
  { name: 'letters of other scripts, accents, emoji', codes: [0xe9, 0xdf, 0x4e2d, 0x0416, 0x05d0, 0x0627, 0x1f680], refused: null },
];

for (const cls of CLASSES) {
  test(`${cls.refused ? 'refused' : 'accepted'}: ${cls.name}`, () => {
    for (const code of cls.codes) {
      const c = String.fromCodePoint(code);
      for (const name of [`${c}deploy`, `ci${c}key`, `deploy${c}`, `a ${c} b`]) {
        const problem = nameProblem('key', name, 80);
        if (cls.refused) {
          assert.match(String(problem), cls.refused, `U+${code.toString(16)} in ${JSON.stringify(name)}`);
          assert.ok(!withoutHiddenCharacters(name).includes(c), 'and removed for showing');
        } else assert.equal(problem, null, `U+${code.toString(16)} in ${JSON.stringify(name)}`);
      }
    }
  });
}

test('length is counted in characters, and an empty or blank name is refused', () => {
  assert.equal(nameProblem('key', 'é'.repeat(80), 80), null);
  assert.match(String(nameProblem('key', 'x'.repeat(81), 80)), /1 to 80 characters/);
  for (const blank of ['', ' ', '   ']) assert.match(String(nameProblem('key', blank, 80)), /1 to 80/);
  assert.match(String(nameProblem('key', 42, 80)), /1 to 80/);
});

test('look-alikes share a skeleton: case, spacing, full-width, Cyrillic and Greek letters, l/I/1, rn/m', () => {
  const base = nameSkeleton('svc MCP client');
  for (const lookAlike of [
    'SVC MCP CLIENT',
    'svc  mcp-client',
    'ѕvс MCP сlient',
    'ｓｖｃ ＭＣＰ ｃｌｉｅｎｔ',
    'svc MCP cIient',
    'svc MCP c1ient',
    'svc.MCP.client',
    'svç MCP client',
  ]) {
    assert.equal(nameSkeleton(lookAlike), base, lookAlike);
  }
  assert.notEqual(nameSkeleton('svc MCP helper'), base);
  assert.equal(nameSkeleton('svc Companion'), nameSkeleton('svc Cornpanion'));
});
