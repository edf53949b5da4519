/**
 * The structured denial derived from each refusal (docs/errors.md "Structured denials"), over
 * every code of the catalogue and every gate of the policy: only authorization refusals carry one,
 * and a gate's carries the remediation its declaration states.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DENIAL_META_KEY, ERROR_CODES, SvcError } from '@svc/errors';
import { GATE_REMEDIATION, type Gate } from '@svc/policy';
import { denial } from '../src/auth/denial.ts';

const AUTH = 'https://auth.example.test';
const AUTHORIZATION_REFUSALS = new Set(['access_denied', 'insufficient_scope', 'step_up_required']);

test('every code of the catalogue: an envelope for authorization refusals only, never for a 401', () => {
  for (const { code, status } of ERROR_CODES) {
    const meta = denial(AUTH, new SvcError(code, { data: { scope: 'mcp:write', page: '/dashboard' } }));
    assert.equal(meta !== null, AUTHORIZATION_REFUSALS.has(code), code);
    if (status === 401) assert.equal(meta, null, `${code}: the challenge says it`);
  }
});

test('every gate: the remediation its declaration states; a level names the level to ask for', () => {
  for (const gate of Object.keys(GATE_REMEDIATION) as Gate[]) {
    for (const needed of ['VIEWER', 'EDITOR', 'ADMIN', 'a service account key', 'TEAM']) {
      const meta = denial(AUTH, new SvcError('access_denied', { data: { gate, needed, have: 'x' } }));
      const envelope = meta?.[DENIAL_META_KEY] as { remediation: string; remediationHints?: unknown[] };
      assert.equal(envelope.remediation, GATE_REMEDIATION[gate], gate);
      const asks = gate === 'level' && ['VIEWER', 'EDITOR', 'ADMIN'].includes(needed);
      assert.deepEqual(
        envelope.remediationHints,
        asks ? [{ type: 'tool', tool: 'svc_request_access', arguments: { requested_level: needed } }] : undefined,
        `${gate} ${needed}`,
      );
    }
  }
});

test('a refusal that names no gate is undisclosed; a step-up page is made absolute on the auth host', () => {
  assert.deepEqual(denial(AUTH, new SvcError('access_denied'))?.[DENIAL_META_KEY], {
    reason: 'insufficient_authorization',
    remediation: 'undisclosed',
  });
  const meta = denial(AUTH, new SvcError('step_up_required', { data: { page: '/dashboard/projects/p/keys' } }));
  assert.deepEqual(meta?.[DENIAL_META_KEY], {
    reason: 'insufficient_authorization',
    remediation: 'available',
    remediationHints: [{ type: 'url', url: `${AUTH}/dashboard/projects/p/keys` }],
  });
});

test('a call held for an approval: available, followed by its task id and by svc_approval_status', () => {
  const meta = denial(AUTH, new SvcError('access_denied', { data: { gate: 'approval', approval_id: 'apr_x', status: 'pending' } }));
  assert.deepEqual(meta?.[DENIAL_META_KEY], {
    reason: 'insufficient_authorization',
    remediation: 'available',
    remediationHints: [
      { type: 'task', taskId: 'apr_x' },
      { type: 'tool', tool: 'svc_approval_status', arguments: { approval_id: 'apr_x' } },
    ],
  });
});
