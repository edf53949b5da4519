/**
 * terminalSafe over a table of character classes (docs/cli.md "What is printed"): every character
 * of an unsafe class is escaped wherever it stands in a string, every safe one is kept, and JSON
 * output stays valid JSON meaning the same strings.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { terminalSafe } from '../src/terminal-safe.ts';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Each class: its code points, and whether a terminal may receive them as they are. */
const CLASSES: { name: string; codes: number[]; safe: boolean }[] = [
  { name: 'C0 controls (NUL..BS)', codes: range(0x00, 0x08), safe: false },
  { name: 'VT, FF, CR, SO..US (ESC among them)', codes: range(0x0b, 0x1f), safe: false },
  { name: 'DEL and C1 controls (CSI 0x9b among them)', codes: range(0x7f, 0x9f), safe: false },
  {
    name: 'bidi marks, embeddings, overrides, isolates',
    codes: [0x061c, 0x200e, 0x200f, ...range(0x202a, 0x202e), ...range(0x2066, 0x2069)],
    safe: false,
  },
  {
    name: 'zero-width and invisible format characters',
    codes: [0x00ad, 0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0x180e, 0x3164],
    safe: false,
  },
  { name: 'line and paragraph separators', codes: [0x2028, 0x2029], safe: false },
  { name: 'layout the CLI uses (LF, TAB)', codes: [0x0a, 0x09], safe: true },
  { name: 'printable ASCII', codes: range(0x20, 0x7e), safe: true },
  { name: 'Latin-1 letters and NBSP-free punctuation', codes: range(0xc0, 0xff), safe: true },
  { name: 'other scripts and symbols', codes: [0x4e2d, 0x0416, 0x05d0, 0x0627, 0x2192, 0x2026, 0x1f600], safe: true },
];

/** A small deterministic generator: strings mixing one character of a class with plain text. */
function* samples(code: number): Generator<string> {
  const c = String.fromCodePoint(code);
  yield c;
  yield `key${c}name`;
  yield `${c}${c}[2J${c}]0;title\u0007`;
  yield `end${c}`;
}

for (const cls of CLASSES) {
  test(`${cls.safe ? 'kept' : 'escaped'}: ${cls.name}`, () => {
    for (const code of cls.codes) {
      for (const sample of samples(code)) {
        const shown = terminalSafe(sample);
        const c = String.fromCodePoint(code);
        if (cls.safe) {
          assert.ok(shown.includes(c), `U+${code.toString(16)} kept in ${JSON.stringify(sample)}`);
        } else {
          assert.ok(!shown.includes(c), `U+${code.toString(16)} escaped in ${JSON.stringify(sample)}`);
          assert.ok(shown.includes(`\\u${code.toString(16).padStart(4, '0')}`), 'shown as a visible escape');
        }
        // No character of any unsafe class survives, whatever else the sample holds.
        for (const other of CLASSES.filter((k) => !k.safe)) {
          for (const o of other.codes) assert.ok(!shown.includes(String.fromCodePoint(o)), `U+${o.toString(16)} survived`);
        }
      }
    }
  });
}

test('JSON output stays valid and means the same strings', () => {
  const hostile = { name: '\u001b]0;pwned\u0007\u009b2J\u202eevil\u2028x\r\nok', level: 'ADMIN' };
  const printed = terminalSafe(JSON.stringify(hostile, null, 2));
  assert.deepEqual(JSON.parse(printed), hostile);
  // eslint-disable-next-line no-control-regex -- the control characters are what it looks for
  assert.doesNotMatch(printed, /[\u001b\u0007\u009b\u202e\u2028\r]/);
});
