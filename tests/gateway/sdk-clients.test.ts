/**
 * The official MCP TypeScript SDK clients against the whole stack, as a user would configure them:
 * v1 (`@modelcontextprotocol/sdk`, which speaks 2025-11-25 with the initialize handshake) and v2
 * (`@modelcontextprotocol/client`) with `versionNegotiation` `'auto'` (probes with server/discover)
 * and pinned to 2026-07-28. Each lists tools and calls svc_help and svc_search, once with a project
 * API key and once with OAuth (authorization code + PKCE, a person approving in chromium).
 *
 * A recording fetch keeps what each client sent (the first request, its method and headers), which
 * is what the gateway must accept: docs/conformance.md "What the SDK clients send". The records are
 * written under test-output/sdk-clients/.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
  type OAuthClientProvider as ProviderV2,
  type VersionNegotiationMode,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider as ProviderV1 } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser } from 'playwright-core';
import { outputDir } from '@svc/testkit';
import { PASSWORD, newPerson, type Stack } from '../support/stack.ts';
import { consent, signInOnPage, startStackAndBrowser, stopStackAndBrowser } from '../auth/browser.ts';

let stack: Stack;
let browser: Browser;
let email: string;
let slug: string;
let key: string;

before(async () => {
  ({ stack, browser } = await startStackAndBrowser());
  // TEAM: the six flows here send more requests in a minute than FREE allows.
  const person = await newPerson(stack, 'sdkc', { plan: 'TEAM' });
  ({ email, slug } = person);
  const issue = (level: 'VIEWER' | 'EDITOR') =>
    stack.accounts.keys.createProjectKey({ project: slug, workspace: person.user.workspace, level, name: `sdk ${level}` });
  key = (await issue('VIEWER')).key;
  // One document for svc_search to find, uploaded as any client would (REST, an EDITOR key).
  const upload = await fetch(`${stack.baseUrl}/api/v1/projects/${slug}/tools/svc_upload_document`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-Key': (await issue('EDITOR')).key },
    body: JSON.stringify({
      name: 'key-rotation.md',
      content: '# Key rotation\n\nRotate every API key at least every 90 days; revoke the old key once the new one works.\n',
    }),
  });
  assert.equal(upload.status, 200, await upload.text());
});
after(() => stopStackAndBrowser(stack, browser));

/** One HTTP request a client sent, with credentials shown only by their kind. */
interface Sent {
  /** Which service was asked: the gateway ({base_url}) or the auth-service ({auth_url}). */
  to: string;
  http: string;
  url: string;
  rpc?: string;
  name?: string;
  meta?: Record<string, unknown>;
  headers: Record<string, string>;
  status?: number;
  /** The WWW-Authenticate header of a 401 or 403. */
  challenge?: string;
}

const SHOWN = /^(accept|content-type|mcp-protocol-version|mcp-method|mcp-name|mcp-session-id|last-event-id|authorization|x-api-key)$/i;

function shown(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (!SHOWN.test(name)) return;
    if (name === 'x-api-key') out[name] = '(project key)';
    // The scheme and the credential's prefix (svc_at_ for an access token), never the secret.
    else if (name === 'authorization') out[name] = value.replace(/^(\S+)\s+(svc-bot-|svc-user-|svc_at_|svc-)?.*$/, '$1 $2…');
    else out[name] = value;
  });
  return out;
}

/** A fetch that records each request (and its status), then sends it unchanged. */
function recordingFetch(sent: Sent[]): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const to = url.origin === stack.baseUrl ? 'gateway' : url.origin === stack.authUrl ? 'auth-service' : url.origin;
    const entry: Sent = { to, http: request.method, url: url.pathname, headers: shown(request.headers) };
    if (request.method === 'POST' && request.headers.get('content-type')?.includes('application/json')) {
      const body = (await request.clone().json()) as { method?: string; params?: { name?: string; _meta?: Record<string, unknown> } };
      if (body.method) entry.rpc = body.method;
      if (body.params?.name) entry.name = body.params.name;
      if (body.params?._meta) entry.meta = body.params._meta;
    }
    sent.push(entry);
    const response = await fetch(request);
    entry.status = response.status;
    const challenge = response.headers.get('www-authenticate');
    if (challenge) entry.challenge = challenge;
    return response;
  };
}

const REDIRECT = 'http://127.0.0.1:45997/callback';

/**
 * An OAuth client provider whose redirect is a person signing in and approving in chromium; it
 * keeps the callback URL for `finishAuth`. Dynamic registration, PKCE and the token requests are
 * the SDK's own.
 */
class BrowserApproval implements ProviderV2 {
  info: Parameters<NonNullable<ProviderV2['saveClientInformation']>>[0] | undefined;
  saved: Parameters<ProviderV2['saveTokens']>[0] | undefined;
  verifier = '';
  callback: URL | undefined;
  /** The scope each authorization asked for, in order. */
  readonly asked: string[] = [];
  /** Levels the person picks on the consent page, one per approval (none: the level offered). */
  readonly levels: string[];
  readonly label: string;
  constructor(label: string, levels: string[] = []) {
    this.label = label;
    this.levels = [...levels];
  }
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return {
      client_name: `svc e2e ${this.label}`,
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: NonNullable<BrowserApproval['info']>) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: NonNullable<BrowserApproval['saved']>) {
    this.saved = tokens;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(url: URL) {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.route(`${REDIRECT}**`, async (route) => {
        this.callback = new URL(route.request().url());
        await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>done</p>' });
      });
      this.asked.push(url.searchParams.get('scope') ?? '');
      await page.goto(url.href);
      await signInOnPage(page, email, PASSWORD, `sdk-clients-${this.label}-01-signin`);
      const level = this.levels.shift();
      if (level) {
        await page.waitForSelector('#level');
        await page.selectOption('#level', level);
      }
      await consent(page, { kind: 'approve' }, `sdk-clients-${this.label}-02-approve-${this.asked.length}`);
      await page.waitForURL(`${REDIRECT}**`);
    } finally {
      await context.close();
    }
  }
}

/** What a test does with a connected client, whichever SDK line it is. */
interface Connected {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

interface Line {
  label: string;
  /** A client and its transport; `auth` is either the key header or an OAuth provider. */
  open(
    sent: Sent[],
    auth: { headers: Record<string, string> } | { provider: BrowserApproval },
  ): {
    connect(): Promise<Connected>;
    finishAuth(callback: URL): Promise<void>;
  };
  /** What the recorded requests must show about the era this client speaks. */
  expectEra(t: TestContext, mcp: Sent[]): void;
}

const mcpPath = () => `/mcp/${slug}`;
const toMcp = (s: Sent) => s.to === 'gateway' && s.url === mcpPath();

function v1(): Line {
  return {
    label: 'v1',
    open(sent, auth) {
      const transport = new TransportV1(new URL(`${stack.baseUrl}${mcpPath()}`), {
        fetch: recordingFetch(sent),
        ...('headers' in auth ? { requestInit: { headers: auth.headers } } : { authProvider: auth.provider as ProviderV1 }),
      });
      const client = new ClientV1({ name: 'svc-e2e-v1', version: '1.0.0' });
      return {
        connect: async () => (await client.connect(transport), client),
        finishAuth: (callback) => transport.finishAuth(callback.searchParams.get('code') ?? ''),
      };
    },
    expectEra(_t, mcp) {
      assert.equal(mcp[0]?.rpc, 'initialize', 'v1 starts with the initialize handshake');
      assert.ok(!mcp.some((s) => s.headers['mcp-method']), 'v1 sends no Mcp-Method header');
      const after = mcp.filter((s) => s.http === 'POST' && s.rpc !== 'initialize');
      for (const s of after) assert.equal(s.headers['mcp-protocol-version'], '2025-11-25', `${s.rpc} carries the negotiated version`);
    },
  };
}

function v2(label: string, mode: VersionNegotiationMode): Line {
  return {
    label,
    open(sent, auth) {
      const transport = new TransportV2(new URL(`${stack.baseUrl}${mcpPath()}`), {
        fetch: recordingFetch(sent),
        ...('headers' in auth ? { requestInit: { headers: auth.headers } } : { authProvider: auth.provider }),
      });
      const client = new ClientV2({ name: `svc-e2e-${label}`, version: '1.0.0' }, { versionNegotiation: { mode } });
      return {
        connect: async () => (await client.connect(transport), client),
        finishAuth: (callback) => transport.finishAuth(callback.searchParams),
      };
    },
    expectEra(_t, mcp) {
      assert.equal(mcp[0]?.rpc, 'server/discover', `${label} starts with server/discover`);
      assert.ok(!mcp.some((s) => s.rpc === 'initialize'), `${label} stays in the 2026-07-28 era: ${mcp.map((s) => s.rpc).join(', ')}`);
      for (const s of mcp.filter((m) => m.http === 'POST')) {
        assert.equal(s.headers['mcp-protocol-version'], '2026-07-28', `${s.rpc}: MCP-Protocol-Version`);
        assert.equal(s.headers['mcp-method'], s.rpc, `${s.rpc}: Mcp-Method mirrors the body`);
        if (s.rpc === 'tools/call') assert.equal(s.headers['mcp-name'], s.name, 'tools/call: Mcp-Name mirrors params.name');
        assert.equal(s.meta?.['io.modelcontextprotocol/protocolVersion'], '2026-07-28', `${s.rpc}: _meta protocolVersion`);
        assert.equal(typeof s.meta?.['io.modelcontextprotocol/clientCapabilities'], 'object', `${s.rpc}: _meta clientCapabilities`);
      }
    },
  };
}

const LINES: Line[] = [v1(), v2('v2-auto', 'auto'), v2('v2-pinned', { pin: '2026-07-28' })];

/** Lists tools, calls svc_help and svc_search, and checks what came back. */
async function useTools(client: Connected) {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  assert.ok(names.includes('svc_help') && names.includes('svc_search'), `tools: ${names.join(', ')}`);
  const help = (await client.callTool({ name: 'svc_help', arguments: {} })) as { content: { text: string }[] };
  assert.match(help.content[0]!.text, /Tools you can call/);
  const search = (await client.callTool({ name: 'svc_search', arguments: { query: 'rotation' } })) as {
    content: { text: string }[];
    isError?: boolean;
  };
  assert.notEqual(search.isError, true, JSON.stringify(search));
  assert.match(search.content[0]!.text, /key-rotation\.md/);
}

/** Keeps a client's requests for the docs, and prints the first MCP request. */
async function record(t: TestContext, name: string, sent: Sent[]) {
  await writeFile(join(await outputDir('sdk-clients'), `${name}.json`), JSON.stringify(sent, null, 2));
  const first = sent.find(toMcp);
  t.diagnostic(`first MCP request: ${JSON.stringify(first)}`);
  t.diagnostic(`sequence: ${sent.map((s) => `${s.http} ${s.to}${s.url}${s.rpc ? ` ${s.rpc}` : ''} -> ${s.status ?? '?'}`).join(' | ')}`);
}

for (const line of LINES) {
  test(`SDK ${line.label} with an API key (X-API-Key): lists tools, calls svc_help and svc_search`, async (t) => {
    const sent: Sent[] = [];
    const session = line.open(sent, { headers: { 'X-API-Key': key } });
    try {
      const client = await session.connect();
      try {
        await useTools(client);
      } finally {
        await client.close();
      }
    } finally {
      await record(t, `${line.label}-api-key`, sent);
    }
    line.expectEra(t, sent.filter(toMcp));
  });

  test(`SDK ${line.label} with OAuth: 401, discovery, registration, a person approves, token, then the tools`, async (t) => {
    const sent: Sent[] = [];
    const provider = new BrowserApproval(line.label);
    try {
      const first = line.open(sent, { provider });
      await assert.rejects(first.connect(), (err: Error) => /unauthori[sz]ed/i.test(`${err.name} ${err.message}`));
      assert.ok(provider.info?.client_id, 'registered dynamically');
      const callback = provider.callback ?? assert.fail('the browser never reached the redirect URI');
      assert.ok(callback.searchParams.get('code'), 'the person approved');
      await first.finishAuth(callback);
      assert.ok(provider.saved?.access_token, 'tokens saved');

      const before = sent.length;
      const client = await line.open(sent, { provider }).connect();
      try {
        await useTools(client);
      } finally {
        await client.close();
      }
      const authed = sent.slice(before).filter(toMcp);
      for (const s of authed) assert.match(s.headers['authorization'] ?? '', /^Bearer /, `${s.http} ${s.rpc ?? ''} carries the token`);
      line.expectEra(t, authed);
    } finally {
      await record(t, `${line.label}-oauth`, sent);
    }
  });
}

test('SDK v2 pinned to 2026-07-28 steps up on 403 insufficient_scope: the person is asked again, then the call passes', async (t) => {
  const sent: Sent[] = [];
  const line = v2('v2-step-up', { pin: '2026-07-28' });
  // The person lowers the first approval to VIEWER (mcp:read); the second takes the level asked.
  const provider = new BrowserApproval('v2-step-up', ['VIEWER']);
  try {
    const first = line.open(sent, { provider });
    await assert.rejects(first.connect(), (err: Error) => /unauthori[sz]ed/i.test(`${err.name} ${err.message}`));
    await first.finishAuth(provider.callback ?? assert.fail('no first approval'));
    assert.equal(provider.saved?.scope, 'mcp:read');

    const opened = line.open(sent, { provider });
    const client = await opened.connect();
    try {
      provider.callback = undefined;
      const inject = { name: 'svc_inject', arguments: { text: 'step-up check' } };
      // The SDK meets the 403, re-authorizes with the wider scope (the person approves), and stops
      // for the code like any redirect.
      await assert.rejects(client.callTool(inject), (err: Error) => /unauthori[sz]ed/i.test(`${err.name} ${err.message}`));
      const refused = sent.find((s) => s.status === 403) ?? assert.fail('no 403 seen');
      assert.match(refused.challenge ?? '', /Bearer error="insufficient_scope", scope="mcp:write", resource_metadata="/);
      assert.equal(provider.asked.length, 2, 'the person was asked again');
      assert.match(provider.asked[1]!, /mcp:write/, 'for the scope the challenge named');
      await opened.finishAuth(provider.callback ?? assert.fail('no second approval'));
      assert.match(provider.saved?.scope ?? '', /mcp:write/);
      const result = (await client.callTool(inject)) as { isError?: boolean };
      assert.notEqual(result.isError, true, JSON.stringify(result));
    } finally {
      await client.close();
    }
  } finally {
    await record(t, 'v2-step-up', sent);
  }
});
