/**
 * The 300-line rule (docs/conventions.md "Files"): no source file of a service or package is
 * longer; a longer one mixes concerns and is split along them (one resource, one section).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sourceFiles } from './source-files.ts';

/** The most lines a source file may have (docs/conventions.md "Files"). */
const MAX_SOURCE_LINES = 300;

test(`no source file is over ${MAX_SOURCE_LINES} lines`, async () => {
  const long = (await sourceFiles())
    .map((f) => ({ path: f.path, lines: f.text.split('\n').length - (f.text.endsWith('\n') ? 1 : 0) }))
    .filter((f) => f.lines > MAX_SOURCE_LINES);
  assert.deepEqual(long, [], 'split these along their resources');
});
