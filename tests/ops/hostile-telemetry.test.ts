/**
 * What leaves in traces and logs is never what a caller sent (docs/operations.md "Traces",
 * docs/security.md "Traces"): a generator over every caller-controlled field of both services (the
 * JSON-RPC method, id, tool name and arguments, `_meta`, the path, the query, headers such as
 * User-Agent, MCP-Protocol-Version, Mcp-Method, Origin and the credentials, OAuth parameters and
 * forms) × hostile strings (credential-shaped, key-shaped, `Bearer ...`, terminal escapes, bidi
 * controls, header injection, long text). Every span is exported (always_on) through the
 * allow-list exporter to a receiver in the test, every log line (debug and up) is captured, and
 * none holds a hostile string, a part of one, or a control character; every attribute is an
 * allowed name with a value of its fixed set.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { PassThrough } from 'node:stream';
import { after, before, test } from 'node:test';
import { createAccounts, connectRedis, type Redis } from '@svc/accounts';
import { startAuthService } from '@svc/auth-service/server.ts';
import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { startGateway } from '@svc/mcp-gateway/server.ts';
import { ALLOWED_ATTRIBUTES, HTTP_METHODS, MCP_METHODS, OTHER_VALUE } from '@svc/telemetry';
import { freePort, outsideLoopBudget, startRedis, waitFor, type RedisFixture } from '@svc/testkit';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.ts';

const base62 = (n: number) =>
  Array.from(randomBytes(n), (b) => '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'[b % 62]).join('');

/**
 * Each hostile string with the part of it that must never be exported (a logger may keep a
 * credential's display prefix, `svc_at_` and four characters: the mark is the rest).
 */
const HOSTILE: { text: string; mark: string }[] = [
  ...['svc_live_', 'svc_at_', 'svc_rt_', 'svc-', 'svc-bot-', 'sk_live_'].map((prefix) => {
    const secret = base62(28);
    return { text: `${prefix}${secret}`, mark: secret.slice(6, 20) };
  }),
  ((secret) => ({ text: `Bearer svc_at_${secret}`, mark: secret.slice(6, 20) }))(base62(28)),
  ((tag) => ({ text: `\u001b[2J\u001b]0;${tag}\u0007\u001b[31mtools/call`, mark: tag }))(`esc${base62(10)}`),
  ((tag) => ({ text: `tools/list\r\nX-Injected: ${tag}`, mark: tag }))(`crlf${base62(10)}`),
  ((tag) => ({ text: `\u202e${tag}\u2066ping\u0000`, mark: tag }))(`bidi${base62(10)}`),
  ((tag) => ({ text: `${tag}${'A'.repeat(3000)}`, mark: tag }))(`long${base62(10)}`),
];

/** A header value a client can send: no CR, LF or NUL (the server's parser refuses them, and so do clients). */
const headerSafe = (s: string) => s.replace(/[\r\n\0]/g, ' ');

let redis: RedisFixture;
let otlp: OtlpReceiver;
let client: Redis;
let close: () => Promise<void>;
let flush: () => Promise<void>;
let gwPort = 0;
let authPort = 0;
let slug = '';
let key = '';
const logLines: string[] = [];

before(async () => {
  otlp = await startOtlpReceiver();
  redis = await startRedis();
  [authPort, gwPort] = [await freePort(), await freePort()];
  const config = loadConfig({
    NODE_ENV: 'test',
    REDIS_URL: redis.url,
    AUTH_URL: `http://127.0.0.1:${authPort}`,
    BASE_URL: `http://127.0.0.1:${gwPort}`,
    LOG_LEVEL: 'debug',
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_TRACES_SAMPLER: 'always_on',
  });
  const stream = new PassThrough();
  let partial = '';
  stream.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    logLines.push(...lines.filter((l) => l.length > 0));
  });
  const logger = createLogger({ service: 'hostile', level: 'debug', stream });
  const [auth, gw] = await outsideLoopBudget(async () => [
    await startAuthService({ config: { ...config, port: authPort }, logger }),
    await startGateway({ config: { ...config, port: gwPort }, logger }),
  ]);
  await waitFor(async () => (await fetch(`http://127.0.0.1:${gwPort}/readyz`)).ok, {
    timeout: 10_000,
    message: 'the gateway to reach Redis',
  });
  client = connectRedis(redis.url, { name: 'hostile-telemetry-test' });
  const accounts = createAccounts(client, { pepper: config.keyPepper, bcryptCost: 4 });
  const user = await accounts.users.create({
    emailVerified: true,
    email: `ht-${base62(6)}@example.com`,
    password: 'correct horse battery staple',
  });
  slug = `ht-${base62(6).toLowerCase()}`;
  await accounts.workspaces.createProject({ slug, workspace: user.workspace });
  // A plan whose per-minute limit every request below fits in: each reaches its method, not a 429.
  await accounts.workspaces.setPlan(user.workspace, 'ENTERPRISE');
  key = (await accounts.keys.createProjectKey({ project: slug, workspace: user.workspace, level: 'EDITOR', name: 'k' })).key;
  flush = async () => {
    await Promise.all([gw.tracing.flush(), auth.tracing.flush()]);
  };
  close = async () => {
    await gw.close();
    await auth.close();
  };
});
after(async () => {
  await close();
  client.disconnect();
  await redis.stop();
  await otlp.close();
});

/** One request written byte for byte on a socket (a client library would refuse some of these); the status, or 0. */
function raw(port: number, requestLine: string, headers: Record<string, string>, body = ''): Promise<number> {
  return new Promise((ok) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    socket.on('error', () => ok(0));
    socket.on('close', () => ok(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)));
    const lines = Object.entries({
      host: `127.0.0.1:${port}`,
      ...headers,
      'content-length': String(Buffer.byteLength(body)),
      connection: 'close',
    });
    socket.write(`${requestLine}\r\n${lines.map(([n, v]) => `${n}: ${v}`).join('\r\n')}\r\n\r\n${body}`);
  });
}

const rpc = (method: string, params: object, id: unknown = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, params });
const mcpHeaders = () => ({ 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key });
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const formHeaders = { 'content-type': 'application/x-www-form-urlencoded' };
const enc = encodeURIComponent;

/** Every caller-controlled field, each a request carrying `h` there. */
const FIELDS: Record<string, (h: string) => Promise<number>> = {
  'JSON-RPC method': (h) => raw(gwPort, `POST /mcp/${slug} HTTP/1.1`, mcpHeaders(), rpc(h, {})),
  'JSON-RPC id': (h) => raw(gwPort, `POST /mcp/${slug} HTTP/1.1`, mcpHeaders(), rpc('tools/list', {}, h)),
  'tool name': (h) => raw(gwPort, `POST /mcp/${slug} HTTP/1.1`, mcpHeaders(), rpc('tools/call', { name: h, arguments: {} })),
  'tool arguments': (h) =>
    raw(gwPort, `POST /mcp/${slug} HTTP/1.1`, mcpHeaders(), rpc('tools/call', { name: 'svc_search', arguments: { query: h } })),
  _meta: (h) => raw(gwPort, `POST /mcp/${slug} HTTP/1.1`, mcpHeaders(), rpc('tools/list', { _meta: { progressToken: h, tracestate: h } })),
  'modern _meta and mirrored headers': (h) =>
    raw(
      gwPort,
      `POST /mcp/${slug} HTTP/1.1`,
      { ...mcpHeaders(), 'mcp-protocol-version': '2026-07-28', 'mcp-method': headerSafe(h), 'mcp-name': headerSafe(h) },
      rpc('tools/call', {
        name: h,
        arguments: {},
        _meta: { 'io.modelcontextprotocol/protocolVersion': h, 'io.modelcontextprotocol/clientCapabilities': {} },
      }),
    ),
  'User-Agent': (h) => raw(gwPort, `POST /mcp/${slug} HTTP/1.1`, { ...mcpHeaders(), 'user-agent': headerSafe(h) }, rpc('tools/list', {})),
  'MCP-Protocol-Version': (h) =>
    raw(gwPort, `POST /mcp/${slug} HTTP/1.1`, { ...mcpHeaders(), 'mcp-protocol-version': headerSafe(h) }, rpc('ping', {})),
  Origin: (h) => raw(gwPort, `POST /mcp/${slug} HTTP/1.1`, { ...mcpHeaders(), origin: headerSafe(h) }, rpc('tools/list', {})),
  'X-Request-Id, X-Forwarded-For, Accept': (h) =>
    raw(
      gwPort,
      `POST /mcp/${slug} HTTP/1.1`,
      { ...mcpHeaders(), 'x-request-id': headerSafe(h), 'x-forwarded-for': headerSafe(h), accept: `application/json, ${headerSafe(h)}` },
      rpc('tools/list', {}),
    ),
  'X-API-Key': (h) => raw(gwPort, `POST /mcp/${slug} HTTP/1.1`, { ...mcpHeaders(), 'x-api-key': headerSafe(h) }, rpc('tools/list', {})),
  Authorization: (h) => {
    const { 'x-api-key': _, ...rest } = mcpHeaders();
    return raw(gwPort, `POST /mcp/${slug} HTTP/1.1`, { ...rest, authorization: headerSafe(h) }, rpc('tools/list', {}));
  },
  'traceparent and tracestate': (h) =>
    raw(
      gwPort,
      `POST /mcp/${slug} HTTP/1.1`,
      {
        ...mcpHeaders(),
        traceparent: headerSafe(h),
        tracestate: `svc=${headerSafe(h)
          .replace(/[^\x21-\x7e]/g, 'x')
          .slice(0, 200)}`,
      },
      rpc('tools/list', {}),
    ),
  'MCP path': (h) => raw(gwPort, `POST /mcp/${enc(h)} HTTP/1.1`, mcpHeaders(), rpc('tools/list', {})),
  'MCP query': (h) => raw(gwPort, `POST /mcp/${slug}?code=${enc(h)}&${enc(h)}=1 HTTP/1.1`, mcpHeaders(), rpc('tools/list', {})),
  'REST tool path': (h) =>
    raw(gwPort, `POST /api/v1/projects/${slug}/tools/${enc(h)} HTTP/1.1`, { 'content-type': 'application/json', 'x-api-key': key }, '{}'),
  'REST tool query and body': (h) =>
    raw(
      gwPort,
      `POST /api/v1/projects/${slug}/tools/svc_search?token=${enc(h)} HTTP/1.1`,
      { 'content-type': 'application/json', 'x-api-key': key, 'user-agent': headerSafe(h) },
      JSON.stringify({ query: h }),
    ),
  'management path': (h) =>
    raw(gwPort, `GET /api/v1/workspaces/${enc(h)}/keys HTTP/1.1`, { 'x-api-key': key, 'user-agent': headerSafe(h) }),
  'HTTP method': (h) =>
    raw(gwPort, `${h.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 40) || 'X'} /mcp/${slug} HTTP/1.1`, mcpHeaders(), rpc('ping', {})),
  'OAuth token form': (h) =>
    raw(
      authPort,
      'POST /api/oauth/token HTTP/1.1',
      { ...formHeaders, 'user-agent': headerSafe(h) },
      form({ grant_type: h, client_id: h, refresh_token: h, code: h, code_verifier: h, redirect_uri: h }),
    ),
  'OAuth authorize query': (h) =>
    raw(
      authPort,
      `GET /api/oauth/authorize?${form({ client_id: h, response_type: 'code', redirect_uri: h, state: h, scope: h, code_challenge: h })} HTTP/1.1`,
      { 'user-agent': headerSafe(h), cookie: `_session=${enc(h)}` },
    ),
  'client registration': (h) =>
    raw(
      authPort,
      'POST /api/oauth/register HTTP/1.1',
      { 'content-type': 'application/json', authorization: headerSafe(h) },
      JSON.stringify({ client_name: h, redirect_uris: [`http://127.0.0.1/cb?x=${enc(h)}`], software_id: h }),
    ),
  'introspection and device code': async (h) => {
    await raw(authPort, 'POST /api/oauth/introspect HTTP/1.1', formHeaders, form({ token: h, client_id: h }));
    return raw(authPort, 'POST /api/oauth/device/code HTTP/1.1', formHeaders, form({ client_id: h, scope: h }));
  },
  'sign-in form and device page': async (h) => {
    await raw(
      authPort,
      'POST /signin HTTP/1.1',
      { ...formHeaders, origin: headerSafe(h), 'user-agent': headerSafe(h) },
      form({ email: h, password: h, csrf: h }),
    );
    return raw(authPort, `GET /device?user_code=${enc(h)} HTTP/1.1`, { 'user-agent': headerSafe(h) });
  },
};

/** Every string inside a JSON value. */
function* strings(value: unknown): Generator<string> {
  if (typeof value === 'string') yield value;
  else if (Array.isArray(value)) for (const v of value) yield* strings(v);
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) yield* [k, ...strings(v)];
}

/** C0 and C1 controls, DEL, and direction and invisible formatting characters. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/;

test('hostile strings in every caller-controlled field of both services: no exported span and no log line holds one, a part of one, or a control character', async () => {
  let sent = 0;
  for (const [field, send] of Object.entries(FIELDS)) {
    for (const h of HOSTILE) {
      const status = await send(h.text);
      assert.ok(status === 0 || (status >= 200 && status < 500), `${field}: ${status}`);
      sent++;
    }
  }
  assert.equal(sent, Object.keys(FIELDS).length * HOSTILE.length);
  await flush();
  await waitFor(() => otlp.spans.filter((s) => s.service === 'auth-service').length > 0 && otlp.spans.length >= sent, {
    timeout: 10_000,
    message: 'the spans of both services',
  });

  // The test's own scan of every exported byte and log line, not a request's work.
  await outsideLoopBudget(async () => {
    const exported = otlp.bodies.map((b) => JSON.parse(b) as unknown);
    const logs = logLines.map((l) => JSON.parse(l) as unknown);
    assert.ok(logs.length > 0, 'the services logged');
    for (const [where, values] of [
      ['an exported span', exported],
      ['a log line', logs],
    ] as const) {
      for (const s of values.flatMap((v) => [...strings(v)])) {
        assert.ok(!CONTROL.test(s), `${where} holds a control character: ${JSON.stringify(s.slice(0, 120))}`);
        for (const h of HOSTILE) assert.ok(!s.includes(h.mark), `${where} holds a hostile string: ${JSON.stringify(s.slice(0, 160))}`);
      }
    }
  });
  for (const span of otlp.spans) {
    for (const name of Object.keys(span.attributes)) assert.ok(ALLOWED_ATTRIBUTES.has(name), name);
    const method = span.attributes['mcp.method.name'];
    if (method !== undefined) assert.ok(MCP_METHODS.has(String(method)) || method === OTHER_VALUE, String(method));
    const http = span.attributes['http.request.method'];
    if (http !== undefined) assert.ok(HTTP_METHODS.has(String(http)) || http === OTHER_VALUE, String(http));
  }
  assert.ok(
    otlp.spans.some((s) => s.attributes['mcp.method.name'] === OTHER_VALUE),
    'an unknown JSON-RPC method is exported as the fixed value',
  );
});
