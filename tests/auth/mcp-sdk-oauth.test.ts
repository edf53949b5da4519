/**
 * The official MCP TypeScript SDK client runs the whole remote OAuth flow against the running
 * services (docs/contract.md "Remote MCP OAuth"; MCP specification 2025-11-25, "Authorization"):
 * 401 with resource metadata, protected resource metadata, authorization server metadata, dynamic registration, authorize (a signed-in
 * person approves in chromium), token, tools/call, and a refresh after the access token is gone.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationFull, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Browser } from 'playwright-core';
import { parseCredential } from '@svc/credentials';
import { oidcRecordKey } from '@svc/accounts';
import { startStack, type Stack } from '../support/stack.ts';
import { consent, launchBrowser, signInOnPage } from './browser.ts';

const PASSWORD = 'correct horse battery staple';
const REDIRECT = 'http://127.0.0.1:45998/callback';
let stack: Stack;
let browser: Browser;
let email: string;
let slug: string;

before(async () => {
  stack = await startStack();
  browser = await launchBrowser();
  email = `sdk-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const user = await stack.accounts.users.create({ emailVerified: true, email, password: PASSWORD });
  slug = `sdk-${Math.random().toString(36).slice(2, 8)}`;
  await stack.accounts.workspaces.createProject({ slug, workspace: user.workspace });
});
after(async () => {
  await browser.close();
  await stack.close();
});

/** An OAuthClientProvider whose "redirect" is a person approving in chromium. */
class BrowserApproval implements OAuthClientProvider {
  info: OAuthClientInformationFull | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  code = '';
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'sdk e2e',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationFull) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
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
    const page = await context.newPage();
    await page.route(`${REDIRECT}**`, async (route) => {
      this.code = new URL(route.request().url()).searchParams.get('code') ?? '';
      await route.fulfill({ status: 200, body: 'ok' });
    });
    await page.goto(url.href);
    await signInOnPage(page, email, PASSWORD, 'mcp-sdk-01-signin');
    await consent(page, { kind: 'approve' }, 'mcp-sdk-02-approve');
    await page.waitForURL(`${REDIRECT}**`);
    await context.close();
  }
}

async function connect(provider: BrowserApproval) {
  const client = new Client({ name: 'svc-sdk-oauth', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${stack.baseUrl}/mcp/${slug}`), { authProvider: provider });
  return { client, transport };
}

test('MCP SDK: 401 -> discovery -> DCR -> authorize -> token -> tools/call -> refresh', async () => {
  const provider = new BrowserApproval();
  const first = await connect(provider);
  await assert.rejects(first.client.connect(first.transport), UnauthorizedError);
  assert.ok(provider.info?.client_id, 'registered dynamically');
  assert.ok(provider.code, 'the person approved');
  await first.transport.finishAuth(provider.code);
  assert.equal(parseCredential(provider.saved?.access_token ?? '')?.kind, 'access_token');
  assert.equal(parseCredential(provider.saved?.refresh_token ?? '')?.kind, 'refresh_token');

  const second = await connect(provider);
  await second.client.connect(second.transport);
  const result = await second.client.callTool({ name: 'svc_help', arguments: {} });
  assert.ok(Array.isArray(result.content));
  await second.client.close();

  // The access token is revoked server-side; the SDK refreshes on the 401 and carries on.
  const oldAccess = provider.saved?.access_token ?? '';
  const oldRefresh = provider.saved?.refresh_token;
  // Records are keyed by the digest of the token: no Redis key spells a live token.
  const allKeys = (await stack.client.keys('svc:oidc:*')).join('\n');
  assert.ok(oldAccess && !allKeys.includes(oldAccess) && !allKeys.includes(oldRefresh ?? 'none'));
  assert.equal(await stack.client.del(oidcRecordKey('AccessToken', oldAccess)), 1);
  await stack.client.publish('svc:invalidate', 'test');
  const third = await connect(provider);
  await third.client.connect(third.transport);
  const again = await third.client.callTool({ name: 'svc_help', arguments: {} });
  assert.ok(Array.isArray(again.content));
  assert.notEqual(provider.saved?.access_token, oldAccess);
  assert.notEqual(provider.saved?.refresh_token, oldRefresh);
  await third.client.close();
});
