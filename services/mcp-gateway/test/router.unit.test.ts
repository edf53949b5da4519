/** The gateway's one router (docs/gateway-pipeline.md "One router"). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRouter } from '../src/http/router.ts';

const match = createRouter(
  [
    { path: '/mcp/team/{slug}', methods: { POST: 'team', OPTIONS: 'preflight' }, otherMethods: (allow: string) => `405 ${allow}` },
    { path: '/mcp/{slug}', methods: { POST: 'project', OPTIONS: 'preflight' }, otherMethods: (allow: string) => `405 ${allow}` },
    { path: '/api/v1/projects/{slug}/tools/{tool}', methods: { POST: 'tool' } },
    {
      path: '/api/v1/projects/{project}/keys/{id}',
      methods: { PATCH: 'update', DELETE: 'revoke' },
      otherMethods: (a: string) => `405 ${a}`,
    },
    { path: '/healthz', anyCase: true as const, methods: { GET: 'health', HEAD: 'health' } },
    { path: '/api/oauth/*', methods: {}, otherMethods: () => 'elsewhere' },
  ],
  'not found',
);

test('a path matches whole, its parameters raw, its query and one trailing slash ignored', () => {
  assert.deepEqual(match('POST', '/mcp/demo'), { route: 'project', params: { slug: 'demo' }, path: '/mcp/demo' });
  assert.deepEqual(match('POST', '/mcp/team/t1/?x=1'), { route: 'team', params: { slug: 't1' }, path: '/mcp/team/t1/' });
  assert.deepEqual(match('POST', '/mcp/a%2Fb'), { route: 'project', params: { slug: 'a%2Fb' }, path: '/mcp/a%2Fb' });
  assert.deepEqual(match('POST', '/api/v1/projects/p/tools/svc_help#frag').params, { slug: 'p', tool: 'svc_help' });
  assert.equal(match('POST', '/mcp/team').route, 'project', '"team" alone is a project slug');
  for (const url of ['/mcp/a/b', '/mcp/', '/mcp', '/mcp/demo//', '/MCP/demo', '//mcp/demo', '/healthz/x'])
    assert.equal(match('POST', url).route, 'not found', url);
});

test('another method: the 405 route with the methods in table order, or on to the not-found route', () => {
  assert.equal(match('GET', '/mcp/demo').route, '405 POST, OPTIONS');
  assert.equal(match('GET', '/api/v1/projects/p/keys/k').route, '405 PATCH, DELETE');
  assert.equal(match('GET', '/api/v1/projects/p/tools/x').route, 'not found', 'the tool path has no 405 of its own');
  assert.equal(match('POST', '/healthz').route, 'not found');
});

test('paths marked so match in either case; a prefix takes whatever follows it', () => {
  assert.equal(match('GET', '/HEALTHZ').route, 'health');
  assert.equal(match('HEAD', '/healthz/').route, 'health');
  assert.equal(match('DELETE', '/api/oauth/device/code').route, 'elsewhere');
  assert.equal(match('POST', '/api/oauth/').route, 'elsewhere');
  assert.equal(match('POST', '/api/OAUTH/token').route, 'not found');
  assert.equal(match('POST', '/api/oauth').route, 'not found');
});
