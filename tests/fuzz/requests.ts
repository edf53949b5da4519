/**
 * What the fuzz suite sends: fast-check arbitraries of HTTP requests to every entry point of both
 * services (docs/security.md "Fuzzing"). Each request mixes well-formed parts (real routes, real
 * credentials, known parameter names, valid JSON-RPC) with broken ones (bad percent-encoding, wrong
 * types, junk bodies and headers), so that it reaches past the first check of each step.
 */
import fc from 'fast-check';
import { MANAGEMENT_ROUTES } from '@svc/mcp-gateway/rest/management-steps.ts';

export interface FuzzRequest {
  service: 'auth' | 'gateway';
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Values the generator picks from: the seeded project, keys and clients (harness.ts). */
export interface Seeds {
  project: string;
  team: string;
  keys: string[];
  clientId: string;
  deviceCode: string;
  userCode: string;
}

const NASTY = [
  '',
  '%',
  '%E0%A4%A',
  '%ZZ',
  '%00',
  '%C0%80',
  '%FF%FE',
  '..',
  '../../etc/passwd',
  '\u202e',
  '\u0000',
  '\uD800',
  'null',
  '[]',
  '{}',
  '"',
  "'",
  '<script>alert(1)</script>',
  '__proto__',
  'constructor',
  'A'.repeat(300),
  '9'.repeat(40),
  '-1',
  '1e309',
  'true',
];

const junk: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...NASTY),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.integer().map(String),
);

/** Text a header (or a URL, once escaped) can carry: node refuses control characters there. */
const headerSafe = (s: string) => s.replace(/[^\t\x20-\x7e\x80-\xff]/g, '%');

/** A path segment: a real one, an escaped junk one, or raw percent-junk. */
const segment = (real: string[]) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...real) },
    { weight: 2, arbitrary: junk.map((s) => encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, ''))) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%E0%A4%A', '%ZZ', '%2F', '%00', '..', '.', '%2e%2e') },
  );

const query = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.tuple(fc.constantFrom('code', 'return', 'client_id', 'x', 'resource', 'scope', '%', 'a[b]'), junk), { maxLength: 4 })
      .map((pairs) => `?${pairs.map(([k, v]) => `${k}=${encodeURIComponent(v.replace(/[\uD800-\uDFFF]/g, ''))}`).join('&')}`),
  },
  { weight: 1, arbitrary: fc.constantFrom('?%', '?code=%E0%A4%A', '?return=%ZZ', '?a=1&a=2&a=3', '?code[]=x', '?=') },
);

const method = fc.oneof(
  { weight: 6, arbitrary: fc.constant('POST') },
  { weight: 4, arbitrary: fc.constant('GET') },
  { weight: 1, arbitrary: fc.constantFrom('PUT', 'DELETE', 'OPTIONS', 'PATCH', 'HEAD', 'TRACE', 'PROPFIND') },
);

const CONTENT_TYPES = [
  'application/json',
  'application/x-www-form-urlencoded',
  'text/plain',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/x-www-form-urlencoded; charset=iso-8859-1',
  'application/x-www-form-urlencoded; charset=bogus',
  'multipart/form-data; boundary=x',
  'application/jose',
  'text/html',
  ';;;',
];

/** `arb` in `present` cases out of `present + absent`, else no value. */
const maybe = <T>(arb: fc.Arbitrary<T>, present: number, absent: number) =>
  fc.oneof({ weight: absent, arbitrary: fc.constant(undefined) }, { weight: present, arbitrary: arb });

/** Mostly the first (plausible) arbitrary, sometimes the second (broken); absent as `maybe` says. */
const usually = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<T>, present = 1, absent = 1) =>
  maybe(fc.oneof({ weight: 6, arbitrary: good }, { weight: 1, arbitrary: bad }), present, absent);

/**
 * Headers a request may carry: mostly what a real client sends (so a request reaches past the
 * first checks), sometimes broken. `json` picks the content type a JSON API expects.
 */
const commonHeaders = (seeds: Seeds, contentType: string[]) =>
  fc
    .record({
      'content-type': usually(fc.constantFrom(...contentType), fc.oneof(fc.constantFrom(...CONTENT_TYPES), junk.map(headerSafe)), 8, 1),
      accept: usually(
        fc.constantFrom('application/json, text/event-stream', 'application/json', 'text/html'),
        fc.constantFrom('*/*', 'text/event-stream', 'x/y', ''),
        2,
        1,
      ),
      'content-encoding': maybe(fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-junk'), 1, 30),
      authorization: usually(
        fc.constantFrom(...seeds.keys).map((k) => `Bearer ${k}`),
        fc.oneof(
          fc.constantFrom(...seeds.keys).map((k) => `Bearer ${k.slice(0, -1)}x`),
          junk.map((s) => `Bearer ${headerSafe(s)}`),
          junk.map(headerSafe),
          fc.constantFrom('Basic Zm9vOmJhcg==', 'Bearer', 'Bearer  ', 'DPoP abc', 'Bearer svc_at_0000000000000000000000000000000000'),
        ),
        3,
        1,
      ),
      'x-api-key': usually(fc.constantFrom(...seeds.keys), junk.map(headerSafe), 1, 3),
      origin: maybe(fc.constantFrom('http://evil.example', 'null', 'http://127.0.0.1', 'https://claude.ai', '%'), 1, 8),
      cookie: maybe(
        fc
          .array(
            fc.tuple(
              fc.constantFrom('svc_session', 'svc_csrf', '_session', '_session.sig', '_interaction', '_interaction_resume', 'x'),
              fc.oneof(junk.map(headerSafe), fc.constantFrom('%E0%A4%A', '%', '"unterminated', 'a'.repeat(500))),
            ),
            { maxLength: 4 },
          )
          .map((pairs) => pairs.map(([k, v]) => `${k}=${v.replace(/;/g, '')}`).join('; ')),
        1,
        3,
      ),
      'mcp-protocol-version': usually(fc.constantFrom('2025-06-18', '2025-11-25', '2026-07-28'), fc.constantFrom('2024-11-05', 'x', '')),
      'mcp-session-id': maybe(junk.map(headerSafe), 1, 8),
      'mcp-method': maybe(fc.constantFrom('tools/call', 'tools/list', 'initialize', 'x'), 1, 8),
      'mcp-name': maybe(fc.constantFrom('svc_help', 'svc_search', 'x'), 1, 8),
      'x-svc-surface': maybe(fc.constantFrom('hosted', 'companion', 'orchestrator', 'x', ''), 1, 4),
      'x-forwarded-for': maybe(fc.constantFrom('1.2.3.4', 'x', '::1, 10.0.0.1', '%'), 1, 8),
      'x-forwarded-proto': maybe(fc.constantFrom('http', 'https', 'gopher'), 1, 8),
    })
    .map((h) => Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as Record<string, string>);

/** JSON values of every shape, bounded in size. */
const json = fc.jsonValue({ maxDepth: 3 });

const ARG_NAMES = [
  'query',
  'content',
  'name',
  'title',
  'text',
  'mode',
  'limit',
  'max_tokens',
  'document',
  'filename',
  'tags',
  'projects',
  'requested_level',
  'reason',
  'key',
  'value',
  'task',
  'swarm_id',
  'agents',
  'description',
  'id',
];

/** Markdown built from the pieces a heading or fence pattern could choke on. */
const markdown = fc
  .array(fc.constantFrom('# ', '#', ' ', '   ', '\t', '\n', '\r\n', '=', '===', '-', '---', '```', '~~~', 'a', 'b', '###### ', '    '), {
    maxLength: 600,
  })
  .map((parts) => parts.join(''));

const toolArgs = fc.dictionary(
  fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...ARG_NAMES) }, { weight: 1, arbitrary: junk }),
  fc.oneof(json, markdown, junk),
  { maxKeys: 4 },
);

const TOOLS = [
  'svc_help',
  'svc_request_access',
  'svc_context_query',
  'svc_ask',
  'svc_search',
  'svc_recall',
  'svc_inject',
  'svc_upload_document',
  'svc_remember',
  'svc_swarm_create',
  'svc_claim',
  'svc_htask_create',
  'svc_multi_project_query',
  'rlm_search',
];
const tool = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...TOOLS) }, { weight: 1, arbitrary: junk });

const rpcMessage = fc.record(
  {
    jsonrpc: fc.oneof({ weight: 5, arbitrary: fc.constant('2.0') }, { weight: 1, arbitrary: json }),
    id: fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), fc.constant(null), json),
    method: fc.oneof(
      {
        weight: 5,
        arbitrary: fc.constantFrom('tools/call', 'tools/list', 'initialize', 'ping', 'server/discover', 'notifications/initialized'),
      },
      { weight: 1, arbitrary: junk },
    ),
    params: fc.oneof(
      {
        weight: 5,
        arbitrary: fc.record({ name: tool, arguments: fc.oneof({ weight: 5, arbitrary: toolArgs }, { weight: 1, arbitrary: json }) }),
      },
      { weight: 1, arbitrary: json },
      {
        weight: 1,
        arbitrary: fc.record({ protocolVersion: fc.constantFrom('2025-06-18', 'x'), capabilities: json, clientInfo: json, _meta: json }),
      },
    ),
  },
  { requiredKeys: [] },
);

const rpcBody = fc.oneof(
  { weight: 8, arbitrary: rpcMessage.map((m) => JSON.stringify(m)) },
  { weight: 1, arbitrary: fc.array(rpcMessage, { maxLength: 3 }).map((m) => JSON.stringify(m)) },
  { weight: 1, arbitrary: junk },
  { weight: 1, arbitrary: json.map((v) => JSON.stringify(v)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":', '[[[[[[[[[[[[[[[[[[[[', '{"a":1,"a":2}'),
  },
);

export function gatewayRequest(seeds: Seeds): fc.Arbitrary<FuzzRequest> {
  const slug = segment([seeds.project, seeds.project, seeds.project, seeds.team, 'no-such-project']);
  const path = fc.oneof(
    { weight: 6, arbitrary: slug.map((s) => `/mcp/${s}`) },
    { weight: 2, arbitrary: segment([seeds.team]).map((s) => `/mcp/team/${s}`) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(slug, tool)
        .map(([s, t]) => `/api/v1/projects/${s}/tools/${encodeURIComponent(t.replace(/[\uD800-\uDFFF]/g, ''))}`),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(segment([seeds.team]), tool)
        .map(([s, t]) => `/api/v1/teams/${s}/tools/${encodeURIComponent(t.replace(/[\uD800-\uDFFF]/g, ''))}`),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '/api/v1/me',
        '/api/v1/me/key',
        '/api/v1/projects',
        '/api/v1/openapi.json',
        '/.well-known/mcp.json',
        '/healthz',
        '/readyz',
        '/metrics',
        '/',
        '/api/oauth/token',
        '/api/v1/',
        '/mcp',
        '/mcp/',
      ),
    },
    {
      // Every management route (docs/management.md "REST"), its parameters from the seeds or nasty.
      weight: 3,
      arbitrary: fc
        .tuple(fc.constantFrom(...MANAGEMENT_ROUTES.map((r) => r.path)), slug, segment(['key_x', 'ar_x', 'bot_x', seeds.team]))
        .map(([template, s, id]) =>
          template.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'project' ? s : name === 'workspace' ? seeds.team : id)),
        ),
    },
    { weight: 1, arbitrary: slug.map((s) => `/.well-known/oauth-protected-resource/mcp/${s}`) },
    // The Server Card (docs/server-card.md): every project's, and one project's.
    { weight: 1, arbitrary: slug.map((s) => `/mcp/${s}/server-card`) },
    { weight: 1, arbitrary: fc.array(segment(['mcp', 'api', 'v1', '.well-known']), { maxLength: 4 }).map((p) => `/${p.join('/')}`) },
  );
  return fc.record({
    service: fc.constant('gateway' as const),
    method: fc.oneof({ weight: 12, arbitrary: fc.constant('POST') }, { weight: 1, arbitrary: method }),
    path: fc.tuple(path, query).map(([p, q]) => p + q),
    headers: commonHeaders(seeds, ['application/json']),
    body: maybe(rpcBody, 8, 1),
  });
}

const OAUTH_PARAMS = [
  'grant_type',
  'client_id',
  'device_code',
  'code',
  'refresh_token',
  'redirect_uri',
  'code_verifier',
  'code_challenge',
  'code_challenge_method',
  'resource',
  'scope',
  'token',
  'token_type_hint',
  'auto_provision',
  'client_version',
  'state',
  'response_type',
  'nonce',
  'prompt',
  'request',
  'request_uri',
];
const PAGE_PARAMS = ['csrf', 'xsrf', 'email', 'password', 'return', 'user_code', 'confirm', 'abort', 'project', 'confirm_key'];

const paramValue = (seeds: Seeds) =>
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        'urn:ietf:params:oauth:grant-type:device_code',
        'authorization_code',
        'refresh_token',
        'client_credentials',
        'svc-cli',
        'svc-mcp',
        'create-svc',
        'svc-companion',
        seeds.clientId,
        seeds.deviceCode,
        seeds.userCode,
        'http://127.0.0.1:9/cb',
        `http://127.0.0.1:3999/mcp/${seeds.project}`,
        'openid',
        'mcp',
        'S256',
        'code',
        'yes',
        'true',
        'a@b.example',
        '/device',
      ),
    },
    { weight: 3, arbitrary: junk },
  );

const params = (seeds: Seeds, names: string[]) =>
  fc.dictionary(fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: junk }), paramValue(seeds), {
    maxKeys: 6,
  });

/** A body in the form the content type names, or in another one, or broken. */
const encodeBody = (p: Record<string, string>, as: number) => {
  const clean = Object.fromEntries(Object.entries(p).map(([k, v]) => [k, v.replace(/[\uD800-\uDFFF]/g, '')]));
  if (as === 0) return new URLSearchParams(clean).toString();
  if (as === 1) return JSON.stringify(p);
  if (as === 2)
    return Object.entries(p)
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
  return `${JSON.stringify(p).slice(0, -1)}`;
};

const REGISTRATION_FIELDS = [
  'redirect_uris',
  'client_name',
  'client_name#fr',
  'token_endpoint_auth_method',
  'grant_types',
  'response_types',
  'scope',
  'logo_uri',
  'client_uri',
  'tos_uri',
  'policy_uri',
  'contacts',
  'jwks',
  'jwks_uri',
  'software_id',
  'application_type',
  'post_logout_redirect_uris',
];
const registration = fc
  .dictionary(
    fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...REGISTRATION_FIELDS) }, { weight: 1, arbitrary: junk }),
    fc.oneof(
      json,
      fc.constantFrom(['http://127.0.0.1:9/cb'], ['https://app.example/cb'], ['javascript:alert(1)'], 'none', ['authorization_code']),
    ),
    { maxKeys: 5 },
  )
  .map((m) => JSON.stringify(m));

export function authRequest(seeds: Seeds): fc.Arbitrary<FuzzRequest> {
  const oauthPath = fc.constantFrom(
    '/api/oauth/token',
    '/api/oauth/device/token',
    '/api/oauth/device/code',
    '/api/oauth/revoke',
    '/api/oauth/introspect',
    '/api/oauth/par',
    '/api/oauth/userinfo',
    '/api/oauth/authorize',
    '/api/oauth/jwks',
    '/api/oauth/end-session',
    '/.well-known/oauth-authorization-server',
    '/.well-known/openid-configuration',
  );
  const pagePath = fc.oneof(
    fc.constantFrom('/', '/signin', '/signup', '/signout', '/device', '/healthz', '/readyz', '/metrics'),
    segment(['abc', 'x'.repeat(21)]).map((s) => `/interaction/${s}`),
    fc.tuple(segment(['abc']), fc.constantFrom('consent', 'abort', 'login', 'x')).map(([s, a]) => `/interaction/${s}/${a}`),
    segment(['x', 'abc']).map((s) => `/device/${s}`),
    segment(['x']).map((s) => `/api/oauth/register/${s}`),
    fc.array(segment(['api', 'oauth', 'device', 'interaction']), { maxLength: 4 }).map((p) => `/${p.join('/')}`),
  );
  const oauth = fc.record({
    service: fc.constant('auth' as const),
    method,
    path: fc.tuple(oauthPath, query).map(([p, q]) => p + q),
    headers: commonHeaders(seeds, ['application/x-www-form-urlencoded', 'application/json']),
    body: maybe(
      fc.tuple(params(seeds, OAUTH_PARAMS), fc.integer({ min: 0, max: 3 })).map(([p, as]) => encodeBody(p, as)),
      6,
      1,
    ),
  });
  const page = fc.record({
    service: fc.constant('auth' as const),
    method,
    path: fc.tuple(pagePath, query).map(([p, q]) => p + q),
    headers: commonHeaders(seeds, ['application/x-www-form-urlencoded']),
    body: maybe(
      fc.tuple(params(seeds, PAGE_PARAMS), fc.integer({ min: 0, max: 3 })).map(([p, as]) => encodeBody(p, as)),
      6,
      1,
    ),
  });
  const register = fc.record({
    service: fc.constant('auth' as const),
    method: fc.constantFrom('POST', 'POST', 'POST', 'GET', 'PUT', 'DELETE'),
    path: fc.constant('/api/oauth/register'),
    headers: commonHeaders(seeds, ['application/json']),
    body: fc.oneof({ weight: 5, arbitrary: registration }, { weight: 1, arbitrary: junk }),
  });
  return fc.oneof({ weight: 4, arbitrary: oauth }, { weight: 4, arbitrary: page }, { weight: 1, arbitrary: register });
}

/** Requests to both services, half each. */
export function anyRequest(seeds: Seeds): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(gatewayRequest(seeds), authRequest(seeds));
}
