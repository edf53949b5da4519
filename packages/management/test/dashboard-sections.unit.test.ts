/**
 * Every section of an operation's path says which dashboard page does the same (or that none
 * does), so a step-up refusal of an operation declared later names its page the day it is
 * declared (docs/dashboard.md; docs/errors.md "Structured denials").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MANAGEMENT_OPERATIONS } from '../src/contract/operations.ts';
import { DASHBOARD_SECTIONS } from '../src/rules.ts';

test("every operation's section is declared a dashboard page or none", () => {
  const missing = new Set<string>();
  for (const [id, op] of Object.entries(MANAGEMENT_OPERATIONS)) {
    const [, , , scope, , section] = op.path.split('/');
    if ((scope === 'projects' || scope === 'workspaces') && section !== undefined && !Object.hasOwn(DASHBOARD_SECTIONS, section))
      missing.add(`${section} (${id})`);
  }
  assert.deepEqual([...missing], [], 'add the section to DASHBOARD_SECTIONS in packages/management/src/rules.ts');
});
