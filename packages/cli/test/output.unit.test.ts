/**
 * What a person at a terminal reads (docs/cli.md "What is printed", "Completion"): colour only
 * where it is wanted (NO_COLOR, FORCE_COLOR, terminals; the width of a stream in tests/cli), tables fitted to the width by cutting
 * free text, relative times, "did you mean" within two edits, and completion scripts written from
 * the command table.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GLOBAL } from '../src/command.ts';
import { COMMANDS } from '../src/commands.ts';
import { completionScript } from '../src/completion.ts';
import { relativeTime } from '../src/relative-time.ts';
import { colourWanted, paint } from '../src/style.ts';
import { nearest } from '../src/suggest.ts';
import { columns, renderTable } from '../src/table.ts';

const ESC = '\u001b';

test('colour: NO_COLOR and pipes turn it off, FORCE_COLOR on (and FORCE_COLOR=0 off), TERM=dumb off', () => {
  const cases: [boolean, NodeJS.ProcessEnv, boolean][] = [
    [true, {}, true],
    [false, {}, false],
    [true, { NO_COLOR: '1' }, false],
    [true, { NO_COLOR: '' }, true],
    [false, { FORCE_COLOR: '1' }, true],
    [true, { FORCE_COLOR: '0' }, false],
    [true, { FORCE_COLOR: 'false' }, false],
    [false, { FORCE_COLOR: '1', NO_COLOR: '1' }, true],
    [true, { TERM: 'dumb' }, false],
  ];
  for (const [tty, env, wanted] of cases) assert.equal(colourWanted(tty, env), wanted, JSON.stringify({ tty, env }));
  assert.equal(paint('x', 'bold', false), 'x');
  assert.equal(paint('x', 'red', true), `${ESC}[31mx${ESC}[39m`);
});

test('relative times: past and future, each in its largest unit', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  const at = (ms: number) => new Date(now + ms).toISOString();
  assert.equal(relativeTime(at(-10_000), now), 'just now');
  assert.equal(relativeTime(at(-3 * 60_000), now), '3 minutes ago');
  assert.equal(relativeTime(at(-3_600_000), now), '1 hour ago');
  assert.equal(relativeTime(at(2 * 86_400_000), now), 'in 2 days');
  assert.equal(relativeTime(at(30 * 86_400_000), now), 'in 30 days');
  assert.equal(relativeTime(at(90 * 86_400_000), now), 'in 3 months');
  assert.equal(relativeTime(at(-800 * 86_400_000), now), '2 years ago');
  assert.equal(relativeTime('never', now), 'never');
});

const safe = (t: string) => t;

test('tables: fitted to 120 columns by cutting the widest free-text column with an ellipsis; ids never cut', () => {
  const rows = [
    { id: 'k_0123456789abcdef', name: 'n'.repeat(150), note: 'short note', at: '2026-03-01T11:57:00Z' },
    { id: 'k_1', name: 'ci', note: 'x'.repeat(60), at: null },
  ];
  const [table] = columns(rows, [
    ['id', 'ID'],
    ['name', 'NAME', { free: true }],
    ['note', 'NOTE', { free: true }],
    ['at', 'LAST USED', { time: true }],
  ]);
  const now = Date.parse('2026-03-01T12:00:00Z');
  const lines = renderTable(table, { width: 120, colour: false, now, safe });
  for (const line of lines) assert.ok([...line].length <= 120, `${[...line].length}: ${line}`);
  assert.match(lines[1]!, /^k_0123456789abcdef {2}n+… {2}short note {2,}3 minutes ago$/);
  assert.match(lines[2]!, /^k_1 {2,}ci {2,}x+… {2,}-$/, 'the next widest free column gives way too');
  assert.ok(!lines.join('\n').includes(ESC));
  const wide = renderTable(table, { width: Infinity, colour: false, now, safe });
  assert.ok(wide[1]!.includes('n'.repeat(150)), 'not a terminal: nothing is cut');
  const coloured = renderTable(table, { width: 120, colour: true, now, safe });
  assert.ok(coloured[0]!.startsWith(`${ESC}[1mID${ESC}[22m`), 'the header is bold');
});

test('did you mean: within two edits, a swap of neighbours counting one', () => {
  assert.equal(nearest('kyes', ['keys', 'key-ring']), 'keys', 'a swap is one edit');
  assert.equal(nearest('projetc', ['project', 'projects']), 'project');
  assert.equal(nearest('lst', ['list']), 'list');
  assert.equal(nearest('lxyz', ['list']), null, 'three edits away: no guess');
  assert.equal(nearest('lgoin', Object.keys(COMMANDS)), 'login');
  assert.equal(nearest('--projcet', ['--project', '--json']), '--project');
  assert.equal(nearest('VIEWR', ['VIEWER', 'EDITOR']), 'VIEWER');
  assert.equal(nearest('frobnicate', Object.keys(COMMANDS)), null);
});

test('completion: each shell offers every command, its subcommands and its options, from the table', () => {
  for (const shell of ['bash', 'zsh', 'fish'] as const) {
    const script = completionScript(shell, COMMANDS, GLOBAL);
    for (const [name, command] of Object.entries(COMMANDS)) {
      assert.ok(script.includes(name), `${shell}: ${name}`);
      for (const sub of command.subcommands ?? []) assert.ok(script.includes(sub), `${shell}: ${name} ${sub}`);
      for (const option of Object.keys(command.options))
        assert.ok(script.includes(shell === 'fish' ? `-l ${option}` : `--${option}`), `${shell}: ${name} --${option}`);
    }
  }
});
