/**
 * The Server Card (docs/server-card.md): served at /.well-known/mcp.json (every project, templated)
 * and at <endpoint>/server-card (one project), valid against a JSON schema written from the drafts
 * (server-card.schema.json), built from what the gateway declares elsewhere (its protected-resource
 * metadata, its protocol versions), public (CORS, cacheable, an ETag honoured with 304).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../src/mcp/protocol.ts';
import { startFixture, type GatewayFixture } from './support.ts';

let f: GatewayFixture;
let validate: (card: unknown) => boolean;
let errors: () => string;
before(async () => {
  f = await startFixture();
  const schema = JSON.parse(await readFile(new URL('./server-card.schema.json', import.meta.url), 'utf8')) as object;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const check = ajv.compile(schema);
  validate = (card) => check(card);
  errors = () => ajv.errorsText(check.errors);
});
after(() => f.close());

interface Card {
  name: string;
  version: string;
  remotes: {
    url: string;
    supportedProtocolVersions: string[];
    auth: { posture: string; preferred: string; methods: { type: string; registration?: string }[] };
  }[];
  _meta: Record<string, { protectedResourceMetadata: string; authorizationServers: string[]; scopesSupported: string[] }>;
}

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${f.url}${path}`, { headers: { accept: 'application/mcp-server-card+json', ...headers } });
  return { res, text: await res.text() };
}

test('both cards are valid against the draft schema and say what the gateway declares elsewhere', async () => {
  for (const [path, remoteUrl] of [
    ['/.well-known/mcp.json', `${f.url}/mcp/{project}`],
    ['/mcp/demo/server-card', `${f.url}/mcp/demo`],
  ] as const) {
    const { res, text } = await get(path);
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get('content-type'), 'application/mcp-server-card+json', path);
    const card = JSON.parse(text) as Card;
    assert.ok(validate(card), `${path}: ${errors()}`);
    const remote = card.remotes[0]!;
    assert.equal(remote.url, remoteUrl);
    assert.deepEqual(remote.supportedProtocolVersions, [...SUPPORTED_PROTOCOL_VERSIONS]);
    assert.deepEqual(
      [remote.auth.posture, remote.auth.preferred, remote.auth.methods.map((m) => m.type)],
      ['required', 'oauth', ['oauth', 'headers']],
    );
    // The metadata the card names is the one the gateway serves, and says the same.
    const named = card._meta['dev.svc/discovery']!;
    const prmUrl = named.protectedResourceMetadata.replace('{project}', 'demo');
    assert.equal(prmUrl, `${f.url}/.well-known/oauth-protected-resource/mcp/demo`);
    const prm = (await (await fetch(prmUrl)).json()) as { resource: string; authorization_servers: string[]; scopes_supported: string[] };
    assert.equal(prm.resource, remoteUrl.replace('{project}', 'demo'));
    assert.deepEqual(named.authorizationServers, prm.authorization_servers);
    assert.deepEqual(named.scopesSupported, prm.scopes_supported);
  }
});

test('public and cacheable: CORS for any origin, an ETag answered with 304, HEAD and the preflight', async () => {
  const { res } = await get('/.well-known/mcp.json', { origin: 'https://any.example' });
  assert.equal(res.headers.get('access-control-allow-origin'), '*');
  assert.equal(res.headers.get('access-control-expose-headers'), 'ETag');
  assert.match(res.headers.get('cache-control') ?? '', /^public, max-age=\d+$/);
  const etag = res.headers.get('etag')!;
  assert.match(etag, /^"[\w-]+"$/);
  const again = await get('/.well-known/mcp.json', { 'if-none-match': `"other", ${etag}` });
  assert.deepEqual([again.res.status, again.text], [304, '']);
  const other = await get('/.well-known/mcp.json', { 'if-none-match': '"other"' });
  assert.equal(other.res.status, 200);
  // One project's card is another document: its own tag.
  assert.notEqual((await get('/mcp/demo/server-card')).res.headers.get('etag'), etag);
  const head = await fetch(`${f.url}/mcp/demo/server-card`, { method: 'HEAD' });
  assert.deepEqual([head.status, await head.text()], [200, '']);
  const pre = await fetch(`${f.url}/.well-known/mcp.json`, {
    method: 'OPTIONS',
    headers: { origin: 'https://any.example', 'access-control-request-method': 'GET' },
  });
  assert.equal(pre.status, 204);
  assert.match(pre.headers.get('access-control-allow-headers') ?? '', /If-None-Match/);
});

test('a malformed project in the path is refused as the metadata refuses it', async () => {
  for (const [path, status] of [
    ['/mcp/Not_A_Slug/server-card', 404],
    ['/mcp/%E0%A4%A/server-card', 400],
  ] as const) {
    const { res, text } = await get(path);
    assert.equal(res.status, status, path);
    assert.equal(res.headers.get('content-type'), 'application/json', path);
    assert.ok((JSON.parse(text) as { error: { code: string } }).error.code, path);
  }
});

test('the schema is not a formality: a card broken one field at a time fails it', async () => {
  const card = JSON.parse((await get('/mcp/demo/server-card')).text) as Record<string, unknown>;
  const remote = (c: Record<string, unknown>) => (c['remotes'] as Record<string, unknown>[])[0]!;
  const auth = (c: Record<string, unknown>) => remote(c)['auth'] as Record<string, unknown>;
  const breakages: [string, (c: Record<string, unknown>) => void][] = [
    ['a dated $schema', (c) => (c['$schema'] = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server-card.schema.json')],
    ['a name without its namespace', (c) => (c['name'] = 'svc')],
    ['no description', (c) => delete c['description']],
    ['a version range', (c) => (c['version'] = '^1.2.3')],
    ['a misspelt member', (c) => (c['remote'] = c['remotes'])],
    ['an unknown transport', (c) => (remote(c)['type'] = 'websocket')],
    ['posture none with methods', (c) => (auth(c)['posture'] = 'none')],
    ['an unknown registration mode', (c) => ((auth(c)['methods'] as Record<string, unknown>[])[0]!['registration'] = 'cimd')],
    ['a headers method without headers', (c) => ((auth(c)['methods'] as Record<string, unknown>[])[1]!['headers'] = [])],
  ];
  assert.ok(validate(card), errors());
  for (const [name, breakIt] of breakages) {
    const broken = structuredClone(card);
    breakIt(broken);
    assert.equal(validate(broken), false, name);
  }
});
