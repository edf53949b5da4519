/**
 * Consent page hardening (docs/contract.md "OAuth scopes and refresh", registration limits): the
 * client's name cleaned and isolated, the redirect URI's host, the "Not verified by svc" mark for
 * clients svc does not vouch for, and a way to sign out.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ProjectAccess } from '@svc/accounts';
import { CREATE_SVC_KEY_TTL_SECONDS } from '@svc/accounts';
import { grantedScope, grantedScopeForSelection, offeredLevels, preselectedLevel } from '../src/oauth/consent-levels.ts';
import { TTL } from '../src/oauth/lifetimes.ts';
import { displayClientName, isVerifiedClient } from '../src/oauth/client-names.ts';
import { projectApprovalConsent, projectSelectionConsent, provisionConsent, type ConsentView } from '../src/pages/consent-views.ts';

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
  const html = String(
    projectApprovalConsent(view({ clientName: '<b>x</b>', redirectHost: 'app.example.com' }), project, ['VIEWER', 'EDITOR']),
  );
  assert.match(html, /Not verified by svc/);
  assert.match(html, /return to <strong[^>]*>app\.example\.com<\/strong>/);
  assert.match(html, /<bdi[^>]*>&lt;b&gt;x&lt;\/b&gt;<\/bdi>/);
  assert.match(html, /overflow-wrap:anywhere/);
  assert.match(html, /Not you\? <a href="\/signout">Sign out<\/a>/);
});

test('a first-party client carries no mark', () => {
  const html = String(projectApprovalConsent(view({ verified: true }), project, ['VIEWER', 'EDITOR']));
  assert.doesNotMatch(html, /Not verified/);
  assert.doesNotMatch(html, /return to/);
});

test('the level select offers levels up to the role and what was asked, EDITOR preselected, ADMIN only when chosen', () => {
  const select = (levels: ('VIEWER' | 'EDITOR' | 'ADMIN')[]) =>
    /<select id="level" name="level"[^>]*>(.*?)<\/select>/.exec(
      String(projectApprovalConsent(view({ accessDays: 31 }), project, levels)),
    )?.[1];
  assert.equal(
    select(['VIEWER', 'EDITOR']),
    '<option value="VIEWER">VIEWER: read only</option><option value="EDITOR" selected>EDITOR: read and change</option>',
  );
  assert.match(select(['VIEWER', 'EDITOR', 'ADMIN']) ?? '', /<option value="EDITOR" selected>[^<]*<\/option><option value="ADMIN">/);
  assert.match(select(['VIEWER']) ?? '', /<option value="VIEWER" selected>/);
  assert.deepEqual(offeredLevels('EDITOR', 'mcp mcp:read mcp:write mcp:admin'), ['VIEWER', 'EDITOR']);
  assert.deepEqual(offeredLevels('ADMIN', 'mcp:read'), ['VIEWER']);
  assert.deepEqual(offeredLevels('ADMIN', 'openid'), ['VIEWER', 'EDITOR', 'ADMIN']);
  assert.equal(preselectedLevel(['VIEWER', 'EDITOR', 'ADMIN']), 'EDITOR');
  assert.equal(preselectedLevel(['VIEWER']), 'VIEWER');
});

test('the approval and selection pages say how long the access lasts: the Grant lifetime, in days', () => {
  assert.equal(TTL.Grant, 31 * 86_400);
  for (const html of [
    projectApprovalConsent(view({ accessDays: 31 }), project, ['VIEWER']),
    projectSelectionConsent(view({ accessDays: 31 }), [project], ['VIEWER', 'EDITOR', 'ADMIN']),
  ]) {
    assert.match(String(html), /This access lasts 31 days, however often the application uses it; after that it must ask you again/);
  }
});

test("create-svc's page names its key's level and expiry", () => {
  const html = provisionConsent(view({}), 'ws', {
    existing: null,
    name: 'demo',
    keyLevel: 'EDITOR',
    keyDays: CREATE_SVC_KEY_TTL_SECONDS / 86_400,
  });
  assert.match(String(html), /level <strong>EDITOR<\/strong>.*expires after <strong>90 days<\/strong>/s);
});

test('the grant always records an explicit level, the preselected one when the form sent none', () => {
  const asked = 'mcp mcp:read mcp:write mcp:admin';
  assert.equal(grantedScope('EDITOR', asked, 'EDITOR'), 'mcp:write');
  assert.equal(grantedScope('ADMIN', asked, undefined), 'mcp:write', 'never ADMIN unless chosen');
  assert.equal(grantedScope('ADMIN', asked, 'ADMIN'), 'mcp:admin');
  assert.equal(grantedScope('VIEWER', asked, undefined), 'mcp:read');
  assert.equal(grantedScope('EDITOR', asked, 'VIEWER'), 'mcp:read');
  assert.equal(grantedScope('EDITOR', asked, 'ADMIN'), null);
  assert.equal(grantedScope('ADMIN', 'mcp:write mcp:read', undefined), 'mcp:write');
  assert.equal(grantedScope('VIEWER', 'mcp:write mcp:read', 'EDITOR'), null);
  assert.equal(grantedScope('ADMIN', 'openid', 'VIEWER'), 'mcp:read');
  assert.equal(grantedScope('ADMIN', 'garbage', 'nope'), null);
});

test('on the selection page the chosen level is lowered to the role on the project chosen', () => {
  assert.equal(grantedScopeForSelection('VIEWER', 'openid', 'ADMIN'), 'mcp:read');
  assert.equal(grantedScopeForSelection('ADMIN', 'openid', 'VIEWER'), 'mcp:read');
  assert.equal(grantedScopeForSelection('ADMIN', 'openid', undefined), 'mcp:write');
  assert.equal(grantedScopeForSelection('ADMIN', 'openid', 'ROOT'), null);
});
