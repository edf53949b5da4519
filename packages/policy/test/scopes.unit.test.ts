/** OAuth scopes cap a token's level (docs/contract.md "OAuth scopes and refresh"). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { approvedLevel, effectiveRole, MCP_SCOPES, scopeForLevel, tokenRole } from '../src/index.ts';

test('the lower of the role and the scope', () => {
  assert.equal(effectiveRole('ADMIN', 'mcp:read'), 'VIEWER');
  assert.equal(effectiveRole('ADMIN', 'mcp:write'), 'EDITOR');
  assert.equal(effectiveRole('VIEWER', 'mcp:admin'), 'VIEWER');
  assert.equal(effectiveRole('EDITOR', 'mcp:write'), 'EDITOR');
  assert.equal(effectiveRole('NONE', 'mcp:read'), 'NONE');
});

test('mcp, or no MCP scope, is the role itself; several caps allow the highest', () => {
  assert.equal(effectiveRole('ADMIN', 'mcp'), 'ADMIN');
  assert.equal(effectiveRole('ADMIN', ''), 'ADMIN');
  assert.equal(effectiveRole('ADMIN', 'openid offline_access'), 'ADMIN');
  assert.equal(effectiveRole('ADMIN', 'mcp:read mcp'), 'ADMIN');
  assert.equal(effectiveRole('ADMIN', 'mcp:read mcp:write'), 'EDITOR');
});

test('the four scopes and the scope of each level', () => {
  assert.deepEqual(MCP_SCOPES, ['mcp', 'mcp:read', 'mcp:write', 'mcp:admin']);
  assert.equal(scopeForLevel('VIEWER'), 'mcp:read');
  assert.equal(scopeForLevel('EDITOR'), 'mcp:write');
  assert.equal(scopeForLevel('ADMIN'), 'mcp:admin');
});

test('the approved level is the highest level the Grant records; no recorded level is VIEWER', () => {
  assert.equal(approvedLevel('mcp:write'), 'EDITOR');
  assert.equal(approvedLevel('mcp:read mcp:admin'), 'ADMIN');
  assert.equal(approvedLevel('mcp mcp:write'), 'EDITOR', '`mcp` is no level of its own');
  for (const none of ['mcp', '', 'openid email', null, undefined]) assert.equal(approvedLevel(none), 'VIEWER', String(none));
});

test('a token acts at the lowest of the role, the approved level and its scope', () => {
  assert.equal(tokenRole('ADMIN', 'EDITOR', ''), 'EDITOR');
  assert.equal(tokenRole('ADMIN', 'EDITOR', 'openid'), 'EDITOR');
  assert.equal(tokenRole('ADMIN', 'EDITOR', 'mcp'), 'EDITOR');
  assert.equal(tokenRole('ADMIN', 'ADMIN', 'mcp:read'), 'VIEWER');
  assert.equal(tokenRole('VIEWER', 'ADMIN', ''), 'VIEWER');
  assert.equal(tokenRole('NONE', 'ADMIN', 'mcp:admin'), 'NONE');
});
