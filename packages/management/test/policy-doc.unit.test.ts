/**
 * docs/security.md "Rules on the operation" lists each management operation's declared rules; this
 * keeps that table equal to the declarations (a row added, removed or changed fails here).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { MANAGEMENT_OPERATIONS } from '../src/contract/operations.ts';
import type { OperationPolicy } from '../src/contract/policy.ts';

const row = (id: string, p: OperationPolicy) =>
  `| \`${id}\` | ${p.caller} | ${p.stepUp === 'always' ? '**yes**' : ''} | ${p.confirmed ? 'yes' : ''} | ${p.setting ?? ''} | ${p.audit
    .map((a) => `\`${a}\``)
    .join(', ')} |`;

test('the rules table of docs/security.md is the declarations', () => {
  const doc = readFileSync(new URL('../../../docs/security.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('## Rules on the operation'), doc.indexOf('## Consent'));
  const documented = section.split('\n').filter((l) => /^\| `\w+` \|/.test(l));
  const declared = Object.entries(MANAGEMENT_OPERATIONS).map(([id, op]) => row(id, op.policy));
  assert.deepEqual(documented, declared);
});
