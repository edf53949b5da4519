/**
 * The pure parts of `svc doctor` (docs/cli.md "svc doctor"): reading a challenge's auth-params
 * (RFC 9110 §11.6.1: tokens or quoted strings, in any order and case) and RFC 9728 §3.3's resource
 * comparison as the TypeScript SDK applies it, each over a table of cases.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FAMILIES } from '../src/doctor/families.ts';
import type { ProbeResult } from '../src/doctor/probe.ts';
import { corsAllows, resourceMatches } from '../src/doctor/verdicts.ts';
import { challengeParams } from '../src/doctor/walk.ts';

test('a challenge is read whatever the quoting, spacing, order and case of its parameters', () => {
  const cases: [string | undefined, Record<string, string>][] = [
    [undefined, {}],
    ['Bearer', {}],
    [
      'Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp"',
      { resource_metadata: 'https://a.example/.well-known/oauth-protected-resource/mcp' },
    ],
    [
      'Bearer realm="svc", Resource_Metadata="https://a/x", scope="mcp mcp:read"',
      { realm: 'svc', resource_metadata: 'https://a/x', scope: 'mcp mcp:read' },
    ],
    ['Bearer error=invalid_token,scope=mcp', { error: 'invalid_token', scope: 'mcp' }],
    ['Bearer error_description="say \\"no\\", twice", scope="a"', { error_description: 'say "no", twice', scope: 'a' }],
    ['DPoP algs="ES256 EdDSA", resource_metadata = "https://a/y"', { algs: 'ES256 EdDSA', resource_metadata: 'https://a/y' }],
  ];
  for (const [header, want] of cases) assert.deepEqual(challengeParams(header), want, String(header));
});

test('a resource matches the endpoint called when it is the same origin and a prefix of the path, by segment', () => {
  const cases: [string, string, boolean][] = [
    ['https://a.example/mcp/p', 'https://a.example/mcp/p', true],
    ['https://a.example/mcp/p', 'https://a.example/mcp/p/', true],
    ['https://a.example/mcp/p/', 'https://a.example/mcp/p', true],
    ['https://a.example/mcp/p', 'https://a.example/', true],
    ['https://a.example/mcp/p', 'https://a.example/mcp', true],
    ['https://a.example/mcp/p', 'https://a.example/mcp/q', false],
    ['https://a.example/mcp/p', 'https://a.example/mcp/pp', false],
    ['https://a.example/mcp/pp', 'https://a.example/mcp/p', false],
    ['https://a.example/mcp/p', 'http://a.example/mcp/p', false],
    ['https://a.example/mcp/p', 'https://a.example:8443/mcp/p', false],
    ['https://a.example/mcp/p', 'https://b.example/mcp/p', false],
    ['https://a.example/mcp/p', 'not a url', false],
  ];
  for (const [called, resource, want] of cases) assert.equal(resourceMatches(called, resource), want, `${called} vs ${resource}`);
});

test('CORS allows an origin by name or by *, nothing else', () => {
  const answer = (allow?: string): ProbeResult => {
    const headers: Record<string, string> = allow ? { 'access-control-allow-origin': allow } : {};
    return { method: 'GET', url: 'x', status: 200, headers, text: '', json: undefined, redirects: [] };
  };
  assert.equal(corsAllows(answer('*'), 'http://localhost:6274'), true);
  assert.equal(corsAllows(answer('http://localhost:6274'), 'http://localhost:6274'), true);
  assert.equal(corsAllows(answer('http://localhost:6275'), 'http://localhost:6274'), false);
  assert.equal(corsAllows(answer(), 'http://localhost:6274'), false);
  assert.equal(corsAllows(undefined, 'http://localhost:6274'), false);
});

test('the family table: unique ids, a discovery order each, and every family speaks some revision', () => {
  assert.equal(new Set(FAMILIES.map((f) => f.id)).size, FAMILIES.length);
  for (const f of FAMILIES) {
    assert.ok(f.prm.length > 0 && f.registration.length > 0 && f.revisions.length > 0, f.id);
    assert.match(f.id, /^[a-z0-9-]+$/, 'an id is typed on the command line');
  }
});
