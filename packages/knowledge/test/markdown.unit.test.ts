import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_SECTION_CHARS, splitMarkdown } from '../src/markdown.ts';
import { stem, terms } from '../src/text.ts';

test('splits by ATX and setext headings and keeps the heading path', () => {
  const doc = 'Intro text.\n\n# Tokens\n\n## Refresh\n\nRotate refresh tokens.\n\nSetext\n------\n\nBody.\n\n# Keys\nKey text.';
  const s = splitMarkdown(doc, 'auth.md');
  assert.deepEqual(
    s.map((x) => [x.heading, x.path.join('/'), x.level]),
    [
      ['auth.md', '', 0],
      ['Refresh', 'Tokens/Refresh', 2],
      ['Setext', 'Tokens/Setext', 2],
      ['Keys', 'Keys', 1],
    ],
  );
  assert.match(s[1]?.text ?? '', /Rotate refresh tokens/);
});

test('ignores headings inside fenced code', () => {
  const s = splitMarkdown('# Real\n\n```sh\n# not a heading\n```\n\nafter', 'x.md');
  assert.equal(s.length, 1);
  assert.match(s[0]?.text ?? '', /# not a heading/);
});

test('cuts long sections into parts at paragraph boundaries', () => {
  const para = 'word '.repeat(400).trim();
  const s = splitMarkdown(`# Long\n\n${[para, para, para, para].join('\n\n')}`, 'x.md');
  assert.ok(s.length >= 2);
  assert.ok(s.every((x) => x.text.length <= MAX_SECTION_CHARS));
  assert.equal(s[1]?.heading, 'Long (part 2)');
});

test('ATX headings: closing hashes, indentation and what is not a heading (CommonMark §4.2)', () => {
  const h = (line: string) => splitMarkdown(`${line}\nbody`, 'd.md').find((s) => s.level > 0);
  assert.deepEqual([h('## Title ##')?.heading, h('## Title ##')?.level], ['Title', 2]);
  assert.equal(h('#  Spaced   out  #####   ')?.heading, 'Spaced   out');
  assert.equal(h('   # Indented')?.heading, 'Indented');
  assert.equal(h('# C#')?.heading, 'C#');
  assert.equal(h('# #hashtag')?.heading, '#hashtag');
  assert.equal(h('#\ttab#')?.heading, 'tab#');
  for (const no of ['#NoSpace', '    # code', '####### seven', '# ', '# ###']) assert.equal(h(no), undefined, no);
});

// docs/security.md "Denial of service": an EDITOR's upload must not stall the gateway. The old
// heading pattern backtracked cubically: this document (about 3 KB) took 7.8 s to split.
test('splitting costs time linear in the input, whatever the headings hold', () => {
  const hostile = [
    `# a${' '.repeat(3000)}b`,
    `# a${' \t#'.repeat(3000)}b`,
    `## ${'#'.repeat(3000)} ${' '.repeat(3000)}#`,
    `${'-'.repeat(3000)} x\n${'='.repeat(3000)} `,
    `Title\n${'-'.repeat(20000)}${' '.repeat(20000)}!`,
  ];
  for (const doc of hostile) {
    // CPU time of this thread, which a busy machine does not stretch as it does wall time.
    const start = process.threadCpuUsage();
    splitMarkdown(doc.repeat(20), 'hostile.md');
    const { user, system } = process.threadCpuUsage(start);
    const ms = (user + system) / 1000;
    assert.ok(ms < 250, `${doc.slice(0, 20)}... took ${Math.round(ms)} ms of CPU`);
  }
});

test('plain text without headings is one section named after the document', () => {
  const s = splitMarkdown('just some notes', 'notes.txt');
  assert.deepEqual(
    s.map((x) => x.heading),
    ['notes.txt'],
  );
});

test('stemming joins word forms', () => {
  assert.equal(stem('rotated'), stem('rotation'));
  assert.equal(stem('authorize'), stem('authorization'));
  assert.deepEqual(terms('How often should keys be rotated?'), ['often', 'key', 'rotat']);
});
