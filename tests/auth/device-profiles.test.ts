/**
 * The device flow of each client profile, end to end: openid-client (a client library we did not
 * write) starts and polls, a person approves in chromium, and the credential reaches the gateway,
 * where a tool call succeeds (docs/contract.md "Device flow" and "Client profiles"); a dynamically
 * registered client does the same (docs/auth-service.md "Registered device clients").
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as oc from 'openid-client';
import type { Browser } from 'playwright-core';
import { parseCredential } from '@svc/credentials';
import { waitFor } from '@svc/testkit';
import { newPerson, PASSWORD, type Stack } from '../support/stack.ts';
import { consent, runDeviceFlow, shot, startStackAndBrowser, stopStackAndBrowser, type Approval } from './browser.ts';
import { mcpCall } from './gateway-call.ts';

let stack: Stack;
let browser: Browser;

before(async () => ({ stack, browser } = await startStackAndBrowser()));
after(() => stopStackAndBrowser(stack, browser));

const person = (prefix: string) => newPerson(stack, prefix);

async function clientFor(clientId: string) {
  return oc.discovery(new URL(stack.authUrl), clientId, undefined, oc.None(), { algorithm: 'oauth2', execute: [oc.allowInsecureRequests] });
}

async function deviceFlow(
  clientId: string,
  approval: Approval,
  who: { email: string },
  opts: { extra?: Record<string, string>; poll?: Record<string, string>; signInFirst?: boolean } = {},
) {
  const { tokens, page } = await runDeviceFlow(browser, {
    authUrl: stack.authUrl,
    clientId,
    email: who.email,
    password: PASSWORD,
    approval,
    name: clientId,
    typeCode: clientId === 'svc-cli',
    ...opts,
  });
  assert.match(page, /Device connected/);
  return tokens as unknown as Record<string, unknown>;
}

test('svc-mcp: the person picks a project; svc_at_/svc_rt_ pair bound to it; tool call succeeds', async () => {
  const p = await person('mcp');
  const other = await person('other');
  const tokens = await deviceFlow('svc-mcp', { kind: 'select', project: p.slug }, p);
  assert.equal(parseCredential(String(tokens['access_token']))?.kind, 'access_token');
  assert.equal(parseCredential(String(tokens['refresh_token']))?.kind, 'refresh_token');
  assert.equal(String(tokens['token_type']).toLowerCase(), 'bearer');
  assert.equal(tokens['expires_in'], 86400);
  assert.equal(tokens['project_slug'], p.slug);
  assert.equal(tokens['mcp_endpoint'], `${stack.baseUrl}/mcp/${p.slug}`);
  assert.equal(tokens['api_key'], undefined);
  const call = await mcpCall(stack.baseUrl, p.slug, String(tokens['access_token']));
  assert.equal(call.status, 200, JSON.stringify(call.body));
  assert.ok(call.body.result);
  // A token of project A is refused at project B.
  const foreign = await mcpCall(stack.baseUrl, other.slug, String(tokens['access_token']));
  assert.equal(foreign.status, 401);
  assert.equal(foreign.body.error?.message, 'Invalid OAuth token');
  assert.match(foreign.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
});

test('svc-companion: project-scoped tokens; the gateway uses the companion surface', async () => {
  const p = await person('comp');
  const tokens = await deviceFlow('svc-companion', { kind: 'select', project: p.slug }, p);
  assert.equal(tokens['project_slug'], p.slug);
  const call = await mcpCall(stack.baseUrl, p.slug, String(tokens['access_token']));
  assert.equal(call.status, 200, JSON.stringify(call.body));
});

test('create-svc with auto_provision: a new person signs up on the way, gets a project and an api_key', async () => {
  const email = `new-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const config = await clientFor('create-svc');
  const dar = await oc.initiateDeviceAuthorization(config, { auto_provision: 'true' });
  const context = await browser.newContext();
  const page = await context.newPage();
  const polling = oc.pollDeviceAuthorizationGrant(config, dar);
  await page.goto(dar.verification_uri_complete ?? '');
  await page.click('button[name=confirm]');
  await page.waitForSelector('form[action="/signin"]');
  await page.click('a[href^="/signup"]');
  await page.fill('#email', email);
  await page.fill('#password', PASSWORD);
  await shot(page, 'create-svc-02-signup');
  await page.click('form[action="/signup"] button[type=submit]');
  // The same answer whether or not the address is new (docs/auth-service.md "Sign-up and reset
  // reveal no accounts"); the address is confirmed (here by the store, as the mailed link does), then the person signs in.
  await page.waitForSelector('text=Check your email');
  const signedUp = await waitFor(() => stack.accounts.users.findByEmail(email), { timeout: 5000, message: 'the new account' });
  await stack.accounts.users.markEmailVerified(signedUp.id);
  await page.click('a[href^="/signin"]');
  await page.fill('#email', email);
  await page.fill('#password', PASSWORD);
  await page.click('form[action="/signin"] button[type=submit]');
  await consent(page, { kind: 'provision' }, 'create-svc-03-consent');
  await page.waitForSelector('text=Device connected');
  await context.close();
  const tokens = (await polling) as unknown as Record<string, unknown>;
  const user = await stack.accounts.users.findByEmail(email);
  assert.ok(user);
  const slug = String(tokens['project_slug']);
  assert.deepEqual(await stack.accounts.workspaces.projectsOf(user.workspace), [slug]);
  assert.equal(tokens['mcp_endpoint'], `${stack.baseUrl}/mcp/${slug}`);
  assert.equal(parseCredential(String(tokens['api_key']))?.kind, 'project_key');
  assert.equal(parseCredential(String(tokens['refresh_token']))?.kind, 'refresh_token');
  const byToken = await mcpCall(stack.baseUrl, slug, String(tokens['access_token']));
  assert.equal(byToken.status, 200, JSON.stringify(byToken.body));
  const byKey = await mcpCall(stack.baseUrl, slug, String(tokens['api_key']));
  assert.equal(byKey.status, 200, JSON.stringify(byKey.body));
  // A second run reuses the personal workspace project.
  const again = await deviceFlow('create-svc', { kind: 'provision' }, { email }, { extra: { auto_provision: 'true' } });
  assert.equal(again['project_slug'], slug);
});

test('svc-cli: typed code, one confirmation, a 30-day personal key for every project; a new sign-in rotates it', async () => {
  const p = await person('cli');
  const second = await stack.accounts.workspaces.createProject({ slug: `${p.slug}-b`, workspace: p.user.workspace });
  const before = Date.now();
  const t = await deviceFlow('svc-cli', { kind: 'personal' }, p, { poll: { client_version: '1.4.2' }, signInFirst: true });
  assert.equal(parseCredential(String(t['access_token']))?.kind, 'user_key');
  assert.equal(String(t['token_type']).toLowerCase(), 'bearer');
  assert.equal(t['key_type'], 'user');
  assert.equal(t['expires_in'], 2592000);
  assert.equal(t['refresh_token'], undefined);
  assert.equal(t['project_slug'], undefined);
  assert.equal(t['mcp_endpoint'], undefined);
  assert.deepEqual(t['user'], { id: p.user.id, email: p.email });
  assert.equal(t['server_url'], stack.baseUrl);
  const expiresAt = Date.parse(String(t['expires_at']));
  assert.ok(Math.abs(expiresAt - (before + 2592000_000)) < 60_000);
  assert.match(String(t['expires_at']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  for (const slug of [p.slug, second.slug]) assert.equal((await mcpCall(stack.baseUrl, slug, String(t['access_token']))).status, 200);
  // No OAuth token of svc-cli survives the exchange.
  for (const k of await stack.client.keys('svc:oidc:AccessToken:*')) {
    assert.notEqual(JSON.parse((await stack.client.hget(k, 'payload')) ?? '{}').clientId, 'svc-cli');
  }
  const record = await stack.accounts.keys.verify(String(t['access_token']));
  assert.equal(record?.name, 'svc-cli 1.4.2');
  const t2 = await deviceFlow('svc-cli', { kind: 'personal' }, p, { signInFirst: true });
  assert.notEqual(t2['access_token'], t['access_token']);
  const old = await mcpCall(stack.baseUrl, p.slug, String(t['access_token']));
  assert.equal(old.status, 401);
  assert.equal((await mcpCall(stack.baseUrl, p.slug, String(t2['access_token']))).status, 200);
});

test('a registered native client (RFC 7591, no redirect URI) runs the device flow for the project it names; its tokens work and refresh', async () => {
  const p = await person('dcr');
  const other = await person('dcr-other');
  const resource = `${stack.baseUrl}/mcp/${p.slug}`;
  // As a headless MCP client registers for the device grant: public, no redirect URI.
  const registered = await fetch(`${stack.authUrl}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Headless MCP client',
      token_endpoint_auth_method: 'none',
      grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
      scope: 'mcp',
    }),
  });
  const client = (await registered.json()) as Record<string, unknown>;
  assert.equal(registered.status, 201, JSON.stringify(client));
  const clientId = String(client['client_id']);
  // It names the project's MCP URL in both requests (RFC 8707); the person approves that project.
  const flow = await runDeviceFlow(browser, {
    authUrl: stack.authUrl,
    clientId,
    email: p.email,
    password: PASSWORD,
    approval: { kind: 'approve' },
    name: 'dcr-device',
    extra: { resource, scope: 'mcp' },
    poll: { resource },
  });
  assert.match(flow.page, /Device connected/);
  const tokens = flow.tokens as unknown as Record<string, unknown>;
  assert.equal(parseCredential(String(tokens['access_token']))?.kind, 'access_token');
  assert.equal(tokens['project_slug'], p.slug);
  assert.equal(tokens['api_key'], undefined);
  const call = await mcpCall(stack.baseUrl, p.slug, String(tokens['access_token']));
  assert.equal(call.status, 200, JSON.stringify(call.body));
  assert.equal((await mcpCall(stack.baseUrl, other.slug, String(tokens['access_token']))).status, 401);
  const refreshed = await oc.refreshTokenGrant(flow.config, String(tokens['refresh_token']), { resource });
  assert.equal((await mcpCall(stack.baseUrl, p.slug, refreshed.access_token)).status, 200);
});

test('a denied approval answers access_denied to the polling client', async () => {
  const p = await person('deny');
  await assert.rejects(deviceFlow('svc-mcp', { kind: 'deny' }, p), (err: Error & { error?: string }) => {
    assert.equal(err.error, 'access_denied');
    return true;
  });
});
