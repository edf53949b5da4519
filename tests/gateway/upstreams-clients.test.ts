/**
 * Real MCP clients calling a project's upstream tools through svc (docs/upstream-servers.md): the
 * official SDK v1 and v2 clients with an API key, with an OAuth token a person approved in chromium
 * (authorization code + PKCE) and with a service account's client-credentials token. The upstream
 * verifies the token svc signed for each call with @svc/upstream-auth: its client is the caller's
 * OAuth client and its level what the person approved, not the person's role ("what a person
 * approved is what a credential can do"); the same token is refused by another upstream (its
 * audience). A forwarded call counts as one monthly query, across two gateways.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, test } from 'node:test';
import { Client as ClientV2, PrivateKeyJwtProvider, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { PublicJwk } from '@svc/accounts';
import { createLogger } from '@svc/logger';
import { startGateway } from '@svc/mcp-gateway/server.ts';
import { freePort, waitFor } from '@svc/testkit';
import { createSvcTokenVerifier, SvcTokenError } from '@svc/upstream-auth';
import * as oc from 'openid-client';
import type { Browser } from 'playwright-core';
import { newPerson, startStack, type Stack } from '../support/stack.ts';
import { startSdkV1Upstream, startSdkV2Upstream, type TestUpstream, type UpstreamCall } from '../support/upstream-servers.ts';
import { authorizeInBrowser } from '../auth/authorize.ts';
import { launchBrowser } from '../auth/browser.ts';

const REDIRECT = 'http://127.0.0.1:45993/callback';

let stack: Stack;
let browser: Browser;
let person: Awaited<ReturnType<typeof newPerson>>;
let ownerKey: string;
/** `notes`: SDK v1, JSON answers; `other`: SDK v2. Both verify every token svc sends them. */
let notes: TestUpstream;
let other: TestUpstream;

before(async () => {
  // Exact limits: the monthly counter and usage are compared per call, at once, which only the exact
  // mode writes with each request (docs/operations.md "Leased or exact limits").
  stack = await startStack({ UPSTREAM_ALLOWED_PRIVATE: '127.0.0.1/32', RATE_LIMIT_SCALE: '1000', RATE_LIMIT_MODE: 'exact' });
  browser = await launchBrowser();
  person = await newPerson(stack, 'upc');
  ownerKey = (await stack.accounts.keys.createUserKey({ userId: person.user.id })).key;
  notes = await startSdkV1Upstream({ json: true, verify: { issuer: stack.baseUrl } });
  other = await startSdkV2Upstream({ verify: { issuer: stack.baseUrl } });
  for (const [name, server] of [
    ['notes', notes],
    ['other', other],
  ] as const) {
    const added = await api(ownerKey, 'POST', `/api/v1/projects/${person.slug}/upstreams`, { name, url: server.url });
    assert.equal(added.status, 201, JSON.stringify(added.body));
  }
});
after(async () => {
  await browser?.close();
  await notes?.close();
  await other?.close();
  await stack?.close();
});

/** A parsed JSON answer, read loosely: each assertion names what it expects of it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type JsonBody = Record<string, any>;

async function api(key: string, method: string, path: string, body?: unknown, base = stack.baseUrl) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as JsonBody };
}

/** What a test does with a connected client, whichever SDK line it is. */
interface Connected {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

/** A connected client of SDK `line` on the project's endpoint, sending `headers` (the credential). */
async function connect(line: 'v1' | 'v2', headers: Record<string, string>, base = stack.baseUrl): Promise<Connected> {
  const url = new URL(`${base}/mcp/${person.slug}`);
  if (line === 'v1') {
    const client = new ClientV1({ name: 'upstream-clients-v1', version: '1.0.0' });
    await client.connect(new TransportV1(url, { requestInit: { headers } }));
    return client;
  }
  const client = new ClientV2({ name: 'upstream-clients-v2', version: '1.0.0' });
  await client.connect(new TransportV2(url, { requestInit: { headers } }));
  return client;
}

const upstreamNames = async (client: Connected) =>
  (await client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith('notes__') || n.startsWith('other__'));

/** The tools/call requests `server` received since `from`, each verified by the upstream. */
const toolCallsSince = (server: TestUpstream, from: number): UpstreamCall[] =>
  server.calls.slice(from).filter((c) => c.rpcMethod === 'tools/call');

/** Calls notes__read_notes with `client`; returns what the upstream verified of that call's token. */
async function readThrough(client: Connected) {
  const from = notes.calls.length;
  const result = (await client.callTool({ name: 'notes__read_notes', arguments: {} })) as {
    structuredContent?: unknown;
    isError?: boolean;
  };
  assert.notEqual(result.isError, true, JSON.stringify(result));
  assert.ok(
    result.structuredContent && typeof result.structuredContent === 'object' && 'notes' in result.structuredContent,
    JSON.stringify(result),
  );
  const calls = toolCallsSince(notes, from);
  assert.equal(calls.length, 1, 'one call forwarded');
  const call = calls[0]!;
  assert.ok(call.authInfo, `the upstream accepted svc's token: ${call.refusal ?? ''}`);
  return call;
}

for (const line of ['v1', 'v2'] as const) {
  test(`SDK ${line} client with an API key: lists the upstream tools its level allows and calls one; the upstream sees the key as the client`, async () => {
    const issued = await stack.accounts.keys.createProjectKey({
      project: person.slug,
      workspace: person.user.workspace,
      level: 'VIEWER',
      name: `upstream ${line}`,
    });
    const client = await connect(line, { 'X-API-Key': issued.key });
    try {
      assert.deepEqual(
        await upstreamNames(client),
        ['notes__read_notes', 'other__read_notes'],
        'a VIEWER key sees the read-only tools only',
      );
      const call = await readThrough(client);
      assert.equal(call.authInfo!.clientId, `svc-key:${issued.id}`);
      assert.equal(call.authInfo!.extra?.['level'], 'VIEWER');
      assert.equal(call.authInfo!.extra?.['subject'], `key:${issued.id}`);
      assert.ok(!JSON.stringify(call.headers).includes(issued.key), 'the key never reaches the upstream');
    } finally {
      await client.close();
    }
  });
}

test(
  'an OAuth token a person (ADMIN) approved at VIEWER, used by SDK v1 and v2: only the read-only upstream tools, ' +
    "the upstream sees the OAuth client and VIEWER, and the forwarded token is refused by the project's other upstream",
  async () => {
    const config = await oc.dynamicClientRegistration(
      new URL(stack.authUrl),
      { client_name: 'Upstream caller', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
      oc.None(),
      { algorithm: 'oauth2', execute: [oc.allowInsecureRequests] },
    );
    const clientId = config.clientMetadata().client_id;
    const resource = `${stack.baseUrl}/mcp/${person.slug}`;
    const context = await browser.newContext();
    let approval;
    try {
      approval = await authorizeInBrowser(context, config, {
        redirect: REDIRECT,
        resource,
        email: person.email,
        name: 'upstream-clients-viewer',
        onConsentPage: (page) => page.selectOption('#level', 'VIEWER').then(() => undefined),
      });
    } finally {
      await context.close();
    }
    const tokens = await oc.authorizationCodeGrant(
      config,
      approval.callback,
      { pkceCodeVerifier: approval.verifier, expectedState: approval.state },
      { resource },
    );
    const bearer = { Authorization: `Bearer ${tokens.access_token}` };

    for (const line of ['v1', 'v2'] as const) {
      const client = await connect(line, bearer);
      try {
        assert.deepEqual(
          await upstreamNames(client),
          ['notes__read_notes', 'other__read_notes'],
          `${line}: what the person approved, not their role`,
        );
        const from = notes.calls.length;
        await assert.rejects(
          client.callTool({ name: 'notes__write_note', arguments: { title: 'a', text: 'b' } }),
          /403|insufficient|denied/i,
        );
        assert.equal(toolCallsSince(notes, from).length, 0, 'a call above the approved level is never forwarded');

        const call = await readThrough(client);
        assert.equal(call.authInfo!.clientId, clientId, `${line}: the OAuth client's id`);
        assert.equal(call.authInfo!.extra?.['level'], 'VIEWER', `${line}: the approved level, though the person is ADMIN`);
        assert.deepEqual(call.authInfo!.scopes, ['svc:viewer']);
        assert.equal(call.authInfo!.extra?.['subject'], `user:${person.user.id}`);
        assert.ok(!JSON.stringify(call.headers).includes(tokens.access_token), 'the OAuth token never reaches the upstream');

        // The upstream replays the token it received to another upstream of the same project: refused (aud).
        const forwarded = (call.authorization ?? '').replace(/^Bearer /, '');
        const otherVerifier = createSvcTokenVerifier({ issuer: stack.baseUrl, audience: other.url, replay: 'allow' });
        await assert.rejects(
          otherVerifier.verifyAccessToken(forwarded),
          (err: unknown) => err instanceof SvcTokenError && err.reason === 'audience',
        );
        const replayed = await fetch(other.url, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${forwarded}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_notes', arguments: {} } }),
        });
        assert.equal(replayed.status, 401, await replayed.text());
        assert.match(other.calls.at(-1)?.refusal ?? '', /another server|audience/i);
      } finally {
        await client.close();
      }
    }
  },
);

test("a service account's client-credentials token (SDK v2 private-key JWT): the upstream sees the account's client and its granted level", async () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { bot } = await stack.accounts.bots.create({ workspace: person.user.workspace, name: 'upstream-ci' });
  await stack.accounts.bots.grant(bot.id, person.slug, 'EDITOR');
  await stack.accounts.serviceAccountClients.setKeys(bot.id, {
    jwks: { keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'ES256' } as PublicJwk] },
  });
  const provider = new PrivateKeyJwtProvider({
    clientId: bot.id,
    privateKey: { ...privateKey.export({ format: 'jwk' }), kid: 'k1' },
    algorithm: 'ES256',
    expectedIssuer: stack.authUrl,
  });
  const client = new ClientV2({ name: 'upstream-ci', version: '1.0.0' });
  await client.connect(new TransportV2(new URL(`${stack.baseUrl}/mcp/${person.slug}`), { authProvider: provider }));
  try {
    const call = await readThrough(client);
    assert.equal(call.authInfo!.clientId, bot.id);
    assert.equal(call.authInfo!.extra?.['subject'], `service_account:${bot.id}`);
    assert.equal(call.authInfo!.extra?.['level'], 'EDITOR');
  } finally {
    await client.close();
  }
});

test('a forwarded call counts as one monthly query, whichever of two gateways forwards it; a row with counts_as_query off counts none', async () => {
  // tests/support/stack.ts starts one gateway; a second replica is started here on the same Redis and configuration.
  const port = await freePort();
  const second = await startGateway({
    config: { ...stack.config, port },
    logger: createLogger({ service: 'gw2', level: 'error', silent: true }),
  });
  try {
    const secondUrl = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${secondUrl}/readyz`)).ok, { timeout: 10_000, message: 'the second gateway to reach Redis' });
    const usagePath = `/api/v1/workspaces/${person.user.workspace}/usage?days=1`;
    const usage = async () => {
      const u = await api(ownerKey, 'GET', usagePath);
      assert.equal(u.status, 200, JSON.stringify(u.body));
      const tool = (name: string) => (u.body['perTool'] as { tool: string; count: number }[]).find((t) => t.tool === name)?.count ?? 0;
      return { month: u.body['month'].used as number, read: tool('notes__read_notes'), write: tool('notes__write_note') };
    };
    const off = await api(ownerKey, 'PATCH', `/api/v1/projects/${person.slug}/upstreams/notes/tools/write_note`, {
      counts_as_query: false,
    });
    assert.equal(off.status, 200, JSON.stringify(off.body));

    const before = await usage();
    const clients = [await connect('v1', { 'X-API-Key': ownerKey }), await connect('v2', { 'X-API-Key': ownerKey }, secondUrl)];
    const n = 6;
    const from = notes.calls.length;
    try {
      for (let i = 0; i < n; i++) await readThrough(clients[i % 2]!);
      for (const client of clients) await client.callTool({ name: 'notes__write_note', arguments: { title: 't', text: 'x' } });
    } finally {
      for (const client of clients) await client.close();
    }
    assert.equal(toolCallsSince(notes, from).length, n + 2, 'every call reached the upstream once');
    const afterUsage = await usage();
    assert.equal(afterUsage.month - before.month, n, 'one query per forwarded call that counts, listing and handshakes none');
    assert.equal(afterUsage.read - before.read, n);
    assert.equal(afterUsage.write - before.write, 2, 'a call whose row does not count as a query is still a request of its tool');
  } finally {
    await second.close();
  }
});
