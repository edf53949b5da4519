/** RFC 9449 §4.3 (9): htu compared after RFC 3986 §6.2.2-6.2.3 normalization, query and fragment left out. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizedHtu } from '../src/auth/dpop-proof.ts';

test('equivalent URLs normalize alike; others do not', () => {
  const base = 'https://svc.example/mcp/alpha';
  for (const same of [
    'HTTPS://SVC.example/mcp/alpha',
    'https://svc.example:443/mcp/alpha',
    'https://svc.example/mcp/./alpha',
    'https://svc.example/%6Dcp/alpha',
    'https://svc.example/mcp/alpha?x=1#frag',
  ])
    assert.equal(normalizedHtu(same), base, same);
  assert.equal(normalizedHtu('https://svc.example/mcp/a%2fb'), 'https://svc.example/mcp/a%2Fb');
  for (const other of ['https://svc.example/mcp/alpha/', 'http://svc.example/mcp/alpha', 'https://svc.example:8443/mcp/alpha'])
    assert.notEqual(normalizedHtu(other), base, other);
  for (const bad of ['', 'not a url', 'ftp://svc.example/mcp/alpha', 'javascript:alert(1)']) assert.equal(normalizedHtu(bad), null, bad);
});
