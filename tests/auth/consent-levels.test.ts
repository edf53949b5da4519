/**
 * What a person approves is what a token can do (docs/auth-service.md "Scopes"), whatever scope
 * the client asked for: for every scope variant (`openid`, `mcp`, none, `mcp offline_access`,
 * `openid email`, an unknown scope) and every level below the person's role (ADMIN) chosen on the
 * consent page, with the official MCP SDK client, a hand-written openid-client one and (for the
 * scopes that carry no MCP level) a raw HTTP client built from fetch alone, the
 * page preselects EDITOR and says how long the access lasts, svc_help reports the level chosen, a
 * tool above it is refused (403 insufficient_scope; the SDK then asks the person again), and a
 * refresh keeps the level. The device flow's project-selection page records a level too, though
 * its tokens carry no MCP scope at all.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationFull, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import * as oc from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { newPerson, PASSWORD, startStack, type Stack } from '../support/stack.ts';
import { approveInBrowser, authorizeInBrowser } from './authorize.ts';
import { consent, launchBrowser, runDeviceFlow, signInOnPage } from './browser.ts';
import { mcpCall } from './gateway-call.ts';

const REDIRECT = 'http://127.0.0.1:45995/callback';
/** The scope parameter each client sends; '' sends none. */
const SCOPES = ['openid', 'mcp', '', 'mcp offline_access', 'openid email', 'mcp frobnicate'];
/** Levels below the person's role (ADMIN), with the tool just above each. */
const CHOSEN = [
  { level: 'VIEWER', above: 'svc_inject', aboveScope: 'mcp:write' },
  { level: 'EDITOR', above: 'svc_swarm_create', aboveScope: 'mcp:admin' },
] as const;

let stack: Stack;
let browser: Browser;
let person: Awaited<ReturnType<typeof newPerson>>;

before(async () => {
  stack = await startStack({ RATE_LIMIT_SCALE: '1000' });
  browser = await launchBrowser();
  person = await newPerson(stack, 'levels');
});
after(async () => {
  await browser.close();
  await stack.close();
});

/** On the consent page: EDITOR preselected, ADMIN offered, the lifetime said; then the level chosen. */
async function choose(page: Page, level: string): Promise<void> {
  assert.equal(await page.inputValue('#level'), 'EDITOR', 'EDITOR preselected, never ADMIN');
  assert.deepEqual(await page.$$eval('#level option', (os) => os.map((o) => (o as HTMLOptionElement).value)), [
    'VIEWER',
    'EDITOR',
    'ADMIN',
  ]);
  assert.match(await page.innerText('main'), /This access lasts 31 days/);
  await page.selectOption('#level', level);
}

const label = (scope: string) => (scope ? `scope "${scope}"` : 'no scope');

for (const scope of SCOPES) {
  for (const chosen of CHOSEN) {
    test(`hand-written client, ${label(scope)}, ${chosen.level} chosen: acts at ${chosen.level}, also after a refresh`, async () => {
      const config = await oc.dynamicClientRegistration(
        new URL(stack.authUrl),
        { client_name: 'Hand-written', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
        oc.None(),
        { algorithm: 'oauth2', execute: [oc.allowInsecureRequests] },
      );
      const resource = `${stack.baseUrl}/mcp/${person.slug}`;
      const context = await browser.newContext();
      const { callback, verifier, state } = await authorizeInBrowser(context, config, {
        redirect: REDIRECT,
        resource,
        email: person.email,
        name: `levels-${chosen.level}-${scope.replace(/\W/g, '_') || 'none'}`,
        scope,
        onConsentPage: (page) => choose(page, chosen.level),
      });
      await context.close();
      const tokens = await oc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }, { resource });
      await assertActsAt(tokens.access_token, chosen);
      const refreshed = await oc.refreshTokenGrant(config, String(tokens.refresh_token), { resource });
      await assertActsAt(refreshed.access_token, chosen);
    });

    test(`MCP SDK client, ${label(scope)}, ${chosen.level} chosen: acts at ${chosen.level}`, async () => {
      const provider = new BrowserApproval(scope, chosen.level);
      const url = new URL(`${stack.baseUrl}/mcp/${person.slug}`);
      const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
      await assert.rejects(new Client({ name: 'levels', version: '1.0.0' }).connect(first));
      await first.finishAuth(provider.code);
      const client = new Client({ name: 'levels', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
      const help = await client.callTool({ name: 'svc_help', arguments: {} });
      assert.equal((help.structuredContent as { role?: string }).role, chosen.level);
      // The tool above the level: 403 insufficient_scope. The SDK tries to "upscope" by
      // refreshing its token, which keeps the approved level, so the refusal stands.
      await assert.rejects(client.callTool({ name: chosen.above, arguments: {} }), /403/);
      assert.deepEqual(provider.askedAgain, [], 'the person was not asked again: a refresh cannot raise the level');
      await client.close();
    });
  }
}

/** The scopes that once let a token act at the person's full role, for the raw client. */
const RAW_SCOPES = ['openid', '', 'openid email'];

/** A JSON or form POST, its answer parsed; the status kept for the assertions. */
async function postFor(
  url: string,
  body: Record<string, string> | URLSearchParams,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const form = body instanceof URLSearchParams;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
    body: form ? body : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

for (const scope of RAW_SCOPES) {
  for (const chosen of CHOSEN) {
    test(`raw HTTP client (fetch only), ${label(scope)}, ${chosen.level} chosen: acts at ${chosen.level}, also after a refresh`, async () => {
      const meta = (await (await fetch(`${stack.authUrl}/.well-known/oauth-authorization-server`)).json()) as Record<string, string>;
      const registered = await postFor(meta['registration_endpoint']!, {
        client_name: 'Raw client',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
      } as unknown as Record<string, string>);
      assert.equal(registered.status, 201, JSON.stringify(registered.json));
      const clientId = String(registered.json['client_id']);
      const verifier = randomBytes(32).toString('base64url');
      const resource = `${stack.baseUrl}/mcp/${person.slug}`;
      const url = new URL(meta['authorization_endpoint']!);
      for (const [k, v] of Object.entries({
        client_id: clientId,
        response_type: 'code',
        redirect_uri: REDIRECT,
        state: randomBytes(8).toString('hex'),
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        resource,
        ...(scope ? { scope } : {}),
      }))
        url.searchParams.set(k, v);
      const context = await browser.newContext();
      const callback = await approveInBrowser(context, url, {
        redirect: REDIRECT,
        email: person.email,
        name: `levels-raw-${chosen.level}-${scope.replace(/\W/g, '_') || 'none'}`,
        onConsentPage: (page) => choose(page, chosen.level),
      });
      await context.close();
      assert.equal(callback.searchParams.get('state'), url.searchParams.get('state'));
      const code = callback.searchParams.get('code') ?? '';
      const tokens = await postFor(
        meta['token_endpoint']!,
        new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT,
          client_id: clientId,
          code_verifier: verifier,
          resource,
        }),
      );
      assert.equal(tokens.status, 200, JSON.stringify(tokens.json));
      await assertActsAt(String(tokens.json['access_token']), chosen);
      assert.equal(typeof tokens.json['refresh_token'], 'string', 'a public client with a refresh grant gets a refresh token');
      const refreshed = await postFor(
        meta['token_endpoint']!,
        new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: String(tokens.json['refresh_token']),
          client_id: clientId,
          resource,
        }),
      );
      assert.equal(refreshed.status, 200, JSON.stringify(refreshed.json));
      await assertActsAt(String(refreshed.json['access_token']), chosen);
    });
  }
}

for (const clientId of ['svc-mcp', 'svc-companion']) {
  for (const chosen of CHOSEN) {
    test(`device flow ${clientId}, ${chosen.level} chosen with the project: acts at ${chosen.level}, also after a refresh`, async () => {
      const { tokens, config } = await runDeviceFlow(browser, {
        authUrl: stack.authUrl,
        clientId,
        email: person.email,
        password: PASSWORD,
        approval: { kind: 'select', project: person.slug, level: chosen.level },
        name: `levels-device-${clientId}-${chosen.level}`,
      });
      await assertActsAt(tokens.access_token, chosen);
      const refreshed = await oc.refreshTokenGrant(config, String(tokens.refresh_token));
      await assertActsAt(refreshed.access_token, chosen);
    });
  }
}

async function assertActsAt(token: string, chosen: (typeof CHOSEN)[number]): Promise<void> {
  const help = await mcpCall(stack.baseUrl, person.slug, token);
  assert.equal(help.status, 200);
  assert.equal((help.body.result as { structuredContent: { role: string } }).structuredContent.role, chosen.level);
  const above = await mcpCall(stack.baseUrl, person.slug, token, 'tools/call', { name: chosen.above, arguments: {} });
  assert.equal(above.status, 403, `${chosen.above} at ${chosen.level}`);
  assert.equal(above.body.error?.data?.code, 'insufficient_scope');
  assert.match(above.headers.get('www-authenticate') ?? '', new RegExp(`scope="${chosen.aboveScope}"`));
}

/**
 * An OAuthClientProvider whose "redirect" is the person in chromium: the first time they approve
 * at `level`, with the authorization URL's scope replaced by `scope` (what another client would
 * have asked for; the SDK itself asks for the challenge's `mcp`); later requests (the SDK asking
 * for more) are recorded and declined.
 */
class BrowserApproval implements OAuthClientProvider {
  info: OAuthClientInformationFull | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  code = '';
  askedAgain: string[] = [];
  private readonly scope: string;
  private readonly level: string;
  constructor(scope: string, level: string) {
    this.scope = scope;
    this.level = level;
  }
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'sdk levels',
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
    if (this.code) return void this.askedAgain.push(url.searchParams.get('scope') ?? '');
    if (this.scope) url.searchParams.set('scope', this.scope);
    else url.searchParams.delete('scope');
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.route(`${REDIRECT}**`, async (route) => {
      this.code = new URL(route.request().url()).searchParams.get('code') ?? '';
      await route.fulfill({ status: 200, body: 'ok' });
    });
    await page.goto(url.href);
    await signInOnPage(page, person.email, PASSWORD);
    await page.waitForSelector('form[action$="/consent"]');
    await choose(page, this.level);
    await consent(page, { kind: 'approve' }, `levels-sdk-${this.level}-${this.scope.replace(/\W/g, '_') || 'none'}`);
    await page.waitForURL(`${REDIRECT}**`);
    await context.close();
  }
}
