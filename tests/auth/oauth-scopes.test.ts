/**
 * OAuth scopes of the MCP resource end to end (docs/contract.md "OAuth scopes and refresh"): where
 * the scopes are advertised, the level chosen on the consent page recorded as the token's scope,
 * and the gateway's 403 insufficient_scope when the scope, not the role, refuses a call.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as oc from 'openid-client';
import type { Browser, BrowserContext } from 'playwright-core';
import { PASSWORD, startStack, type Stack } from '../support/stack.ts';
import { authorizeInBrowser } from './authorize.ts';
import { launchBrowser } from './browser.ts';
import { mcpCall } from './gateway-call.ts';

const REDIRECT = 'http://127.0.0.1:45996/callback';
let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let config: oc.Configuration;
let email: string;
let slug: string;

before(async () => {
  stack = await startStack();
  browser = await launchBrowser();
  context = await browser.newContext();
  const tag = Math.random().toString(36).slice(2, 8);
  email = `scopes-${tag}@example.com`;
  const user = await stack.accounts.users.create({ emailVerified: true, email, password: PASSWORD });
  slug = `scopes-${tag}`;
  await stack.accounts.workspaces.createProject({ slug, workspace: user.workspace });
  config = await oc.dynamicClientRegistration(
    new URL(stack.authUrl),
    { client_name: 'Scope check', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', scope: 'mcp' },
    oc.None(),
    { algorithm: 'oauth2', execute: [oc.allowInsecureRequests] },
  );
});
after(async () => {
  await context.close();
  await browser.close();
  await stack.close();
});

async function tokenAt(level: string | null, name: string, scope?: string, client = config) {
  const resource = `${stack.baseUrl}/mcp/${slug}`;
  const { callback, verifier, state } = await authorizeInBrowser(context, client, {
    redirect: REDIRECT,
    resource,
    email,
    name,
    ...(scope ? { scope } : {}),
    onConsentPage: async (page) => {
      // EDITOR is preselected for `mcp`, though the own role is ADMIN: ADMIN only when chosen.
      if (!scope) assert.equal(await page.inputValue('#level'), 'EDITOR');
      if (level) await page.selectOption('#level', level);
    },
  });
  return oc.authorizationCodeGrant(client, callback, { pkceCodeVerifier: verifier, expectedState: state }, { resource });
}

test('the scopes are advertised where the MCP spec says', async () => {
  const prm = (await (await fetch(`${stack.baseUrl}/.well-known/oauth-protected-resource/mcp/${slug}`)).json()) as Record<string, unknown>;
  assert.deepEqual(prm['scopes_supported'], ['mcp', 'mcp:read', 'mcp:write', 'mcp:admin']);
  const as = (await (await fetch(`${stack.authUrl}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
  assert.ok((as['scopes_supported'] as string[]).includes('offline_access'));
  const res = await fetch(`${stack.baseUrl}/mcp/${slug}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  assert.equal(res.status, 401);
  assert.match(res.headers.get('www-authenticate') ?? '', /scope="mcp"/);
});

test('a level lowered on the consent page caps the token; the scope, not the role, refuses with 403', async () => {
  const t = await tokenAt('VIEWER', 'scopes-viewer');
  assert.equal(t.scope, 'mcp:read');
  assert.equal((await mcpCall(stack.baseUrl, slug, t.access_token)).status, 200);
  const refused = await mcpCall(stack.baseUrl, slug, t.access_token, 'tools/call', { name: 'svc_inject', arguments: {} });
  assert.equal(refused.status, 403);
  assert.equal(refused.body.error?.data?.code, 'insufficient_scope');
  assert.equal(
    refused.headers.get('www-authenticate'),
    `Bearer error="insufficient_scope", scope="mcp:write", resource_metadata="${stack.baseUrl}/.well-known/oauth-protected-resource/mcp/${slug}"`,
  );
  // A refresh keeps the level the person chose.
  const r = await oc.refreshTokenGrant(config, String(t.refresh_token), { resource: `${stack.baseUrl}/mcp/${slug}` });
  assert.equal(r.scope, 'mcp:read');
});

test('approving as the page opens grants EDITOR, recorded as mcp:write, even to an ADMIN', async () => {
  const t = await tokenAt(null, 'scopes-preselected');
  assert.equal(t.scope, 'mcp:write');
  const call = await mcpCall(stack.baseUrl, slug, t.access_token, 'tools/call', { name: 'svc_inject', arguments: {} });
  assert.notEqual(call.body.error?.data?.code, 'insufficient_scope');
  assert.notEqual(call.body.error?.data?.code, 'access_denied');
  const admin = await mcpCall(stack.baseUrl, slug, t.access_token, 'tools/call', { name: 'svc_swarm_create', arguments: {} });
  assert.equal(admin.body.error?.data?.code, 'insufficient_scope');
});

test('an mcp:admin token manages its own project over REST; a lower scope, another project or a workspace route is refused', async () => {
  const api = (method: string, path: string, token: string, body?: unknown) =>
    fetch(`${stack.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).then(async (r) => ({
      status: r.status,
      headers: r.headers,
      body: (await r.json()) as { error: { code: string; remedy: string } },
    }));
  // An agent that manages asks for mcp:admin itself (the consent page then offers that level).
  const manager = await oc.dynamicClientRegistration(
    new URL(stack.authUrl),
    { client_name: 'Key manager', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', scope: 'mcp:admin mcp:read' },
    oc.None(),
    { algorithm: 'oauth2', execute: [oc.allowInsecureRequests] },
  );
  // ADMIN is granted only when the person chooses it, even to a client that asked for it.
  const admin = await tokenAt('ADMIN', 'scopes-admin-manage', 'mcp:admin', manager);
  assert.equal(admin.scope, 'mcp:admin');
  const listed = await api('GET', `/api/v1/projects/${slug}/keys`, admin.access_token);
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  const created = await api('POST', `/api/v1/projects/${slug}/keys`, admin.access_token, { name: 'from an agent', level: 'VIEWER' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const entry = (await stack.accounts.audit.page((await stack.accounts.users.findByEmail(email))!.workspace, { action: 'key.created' }))
    .entries[0];
  assert.equal(entry?.actor, email, 'recorded as the person the token speaks for');

  const reader = await tokenAt(null, 'scopes-read-manage', 'mcp:read', manager);
  const refused = await api('GET', `/api/v1/projects/${slug}/keys`, reader.access_token);
  assert.equal(refused.status, 403);
  assert.equal(refused.body.error.code, 'insufficient_scope');
  assert.match(refused.headers.get('www-authenticate') ?? '', /scope="mcp:admin"/);

  const other = await api('GET', `/api/v1/projects/not-${slug}/keys`, admin.access_token);
  assert.equal(other.status, 401, 'the token is bound to its own project');
  const user = (await stack.accounts.users.findByEmail(email))!;
  const workspace = await api('GET', `/api/v1/workspaces/${user.workspace}/usage`, admin.access_token);
  assert.equal(workspace.status, 401);
  assert.match(workspace.body.error.remedy, /bound to one project/);
});
