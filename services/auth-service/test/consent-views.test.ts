/**
 * Consent page hardening (docs/contract.md "OAuth scopes and refresh", registration limits): the
 * client's name cleaned and isolated, the redirect URI's host, the "Not verified by svc" mark for
 * clients svc does not vouch for, and a way to sign out.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ProjectAccess } from '@svc/accounts';
import { grantedScope, offeredLevels } from '../src/pages/consent-levels.ts';
import { displayClientName, isVerifiedClient } from '../src/oauth/client-names.ts';
import { projectApprovalConsent, type ConsentView } from '../src/pages/consent-views.ts';

const project = { project: { slug: 'demo', name: 'Demo' }, role: 'EDITOR' } as ProjectAccess;
const view = (over: Partial<ConsentView>): ConsentView => ({
  uid: 'u1',
  csrf: 'c',
  clientName: 'Tool',
  verified: false,
  email: 'a@example.com',
  ...over,
});

test('names lose control and bidi characters and are cut at 80 characters with an ellipsis', () => {
  assert.equal(displayClientName('\u202eevil\u2066 tool\u200f\u0007'), 'evil tool');
  const long = displayClientName('é'.repeat(200));
  assert.equal([...long].length, 80);
  assert.ok(long.endsWith('…'));
  assert.equal(displayClientName('x'.repeat(80)), 'x'.repeat(80));
});

test('only first-party clients count as verified', () => {
  assert.equal(isVerifiedClient('svc-cli'), true);
  assert.equal(isVerifiedClient('svc-mcp'), true);
  assert.equal(isVerifiedClient('https://app.example.com/client.json'), false);
  assert.equal(isVerifiedClient('dcr-client-id'), false);
});

test('a registered client: the mark, the redirect host, the isolated name, sign out', () => {
  const html = projectApprovalConsent(view({ clientName: '<b>x</b>', redirectHost: 'app.example.com' }), project, ['VIEWER', 'EDITOR']);
  assert.match(html, /Not verified by svc/);
  assert.match(html, /return to <strong[^>]*>app\.example\.com<\/strong>/);
  assert.match(html, /<bdi[^>]*>&lt;b&gt;x&lt;\/b&gt;<\/bdi>/);
  assert.match(html, /overflow-wrap:anywhere/);
  assert.match(html, /Not you\? <a href="\/signout">Sign out<\/a>/);
});

test('a first-party client carries no mark', () => {
  const html = projectApprovalConsent(view({ verified: true }), project, ['VIEWER', 'EDITOR']);
  assert.doesNotMatch(html, /Not verified/);
  assert.doesNotMatch(html, /return to/);
});

test('the level select offers levels up to the role and what was asked, the highest selected', () => {
  const html = projectApprovalConsent(view({}), project, ['VIEWER', 'EDITOR']);
  assert.match(html, /<select id="level" name="level"[^>]*><option value="VIEWER">[^<]*<\/option><option value="EDITOR" selected>/);
  assert.deepEqual(offeredLevels('EDITOR', 'mcp mcp:read mcp:write mcp:admin'), ['VIEWER', 'EDITOR']);
  assert.deepEqual(offeredLevels('ADMIN', 'mcp:read'), ['VIEWER']);
  assert.deepEqual(offeredLevels('ADMIN', 'openid'), ['VIEWER', 'EDITOR', 'ADMIN']);
});

test('the grant records mcp for the own role of a client that asked for mcp, else the capped scope', () => {
  const asked = 'mcp mcp:read mcp:write mcp:admin';
  assert.equal(grantedScope('EDITOR', asked, 'EDITOR'), 'mcp');
  assert.equal(grantedScope('EDITOR', asked, undefined), 'mcp');
  assert.equal(grantedScope('EDITOR', asked, 'VIEWER'), 'mcp:read');
  assert.equal(grantedScope('EDITOR', asked, 'ADMIN'), null);
  assert.equal(grantedScope('ADMIN', 'mcp:write mcp:read', undefined), 'mcp:write');
  assert.equal(grantedScope('VIEWER', 'mcp:write mcp:read', 'EDITOR'), null);
});
