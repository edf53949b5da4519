/**
 * Client governance at consent (docs/management.md "Client governance"), with Claude's and VS
 * Code's metadata documents (hosted-clients.ts) and the owner's operations of the management layer:
 * a deny rule and an allowlist refuse with a page naming the rule; approval mode holds a first-seen
 * client with a page saying it waits (filed once, audited, so the owner's webhook hears of it);
 * once approved the next attempt consents and calls a tool; denying the client ends that grant,
 * and the gateway refuses its token.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as oc from 'openid-client';
import type { Page } from 'playwright-core';
import { createManagement, type Actor } from '@svc/management';
import { waitFor } from '@svc/testkit';
import { newPerson, PASSWORD } from '../support/stack.ts';
import { authorizeInBrowser } from './authorize.ts';
import { shot, signInOnPage } from './browser.ts';
import { mcpCall } from './gateway-call.ts';
import { HOSTED_CLIENTS, startHostedClients, type HostedClient, type HostedClientsWorld } from './hosted-clients.ts';

let world: HostedClientsWorld;
const claude = HOSTED_CLIENTS.find((c) => c.name === 'Claude')!;

before(async () => {
  world = await startHostedClients();
});
after(() => world?.close());

/** The owner of a new workspace, as the dashboard would act for them (a second factor just used). */
async function owner(prefix: string) {
  const who = await newPerson(world.stack, prefix);
  const actor: Actor = {
    kind: 'person',
    userId: who.user.id,
    label: who.email,
    source: '192.0.2.9',
    requestId: 'test',
    factorAt: Date.now(),
  };
  const management = createManagement(world.stack.accounts, { redis: world.stack.client });
  return { ...who, actor, management };
}

async function discovered(c: HostedClient) {
  return oc.discovery(new URL(world.stack.authUrl), c.clientId, undefined, oc.None(), {
    algorithm: 'oauth2',
    execute: [oc.allowInsecureRequests],
  });
}

/** Starts an authorization in chromium, signs in, and returns the page svc shows next (and its status). */
async function attempt(c: HostedClient, who: { email: string; slug: string }, name: string): Promise<{ page: Page; status: number }> {
  const config = await discovered(c);
  const url = oc.buildAuthorizationUrl(config, {
    redirect_uri: c.redirect,
    scope: 'mcp',
    code_challenge: await oc.calculatePKCECodeChallenge(oc.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
    resource: `${world.stack.baseUrl}/mcp/${who.slug}`,
  });
  const page = await (await world.browser.newContext()).newPage();
  await page.route(`${c.redirect}**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<p>back</p>' }));
  let status = 0;
  page.on('response', (r) => {
    if (r.url().includes('/interaction/') && r.request().resourceType() === 'document') status = r.status();
  });
  await page.goto(url.href);
  await signInOnPage(page, who.email, PASSWORD);
  await page.waitForSelector('form[action$="/abort"]');
  await shot(page, name);
  return { page, status };
}

test('a deny rule refuses the client with a page naming the rule; back at the client it is access_denied', async () => {
  const o = await owner('gov-deny');
  await o.management.setClientPolicy(o.actor, o.user.workspace, { mode: 'open', allow: [], deny: [{ kind: 'host', value: 'claude.ai' }] });
  const { page, status } = await attempt(claude, o, 'governance-01-denied');
  assert.equal(status, 403);
  assert.match((await page.textContent('#client-rule')) ?? '', /does not admit Claude: the owner's rule deny host claude\.ai applies/);
  await page.click('form[action$="/abort"] button');
  await page.waitForURL(`${claude.redirect}**`);
  assert.equal(new URL(page.url()).searchParams.get('error'), 'access_denied');
  await page.context().close();
});

test('an allowlist refuses a client it does not name, and admits one it does, saying which rule', async () => {
  const o = await owner('gov-allow');
  await o.management.setClientPolicy(o.actor, o.user.workspace, {
    mode: 'allowlist',
    allow: [{ kind: 'host', value: 'vscode.dev' }],
    deny: [],
  });
  const refused = await attempt(claude, o, 'governance-02-allowlist');
  assert.equal(refused.status, 403);
  assert.match(
    (await refused.page.textContent('#client-rule')) ?? '',
    /admits only the applications its owner listed \(rule allowlist\), and Claude is not one of them/,
  );
  await refused.page.context().close();
  const vscode = HOSTED_CLIENTS.find((c) => c.host === 'vscode.dev')!;
  const admitted = await attempt(vscode, o, 'governance-03-allowed');
  assert.match((await admitted.page.textContent('#client-rule')) ?? '', /admits this application: the owner's rule allow host vscode\.dev/);
  await admitted.page.context().close();
});

test('approval mode: the first attempt waits (filed once, audited), the owner approves, the next consents and calls a tool; denying ends the grant', async () => {
  const o = await owner('gov-approval');
  const ws = o.user.workspace;
  await o.management.setClientPolicy(o.actor, ws, { mode: 'approval', allow: [], deny: [] });
  for (const n of [1, 2]) {
    const held = await attempt(claude, o, `governance-04-waiting-${n}`);
    assert.equal(held.status, 403);
    assert.match((await held.page.textContent('#client-rule')) ?? '', /Claude is waiting for their approval, and they have been told/);
    await held.page.context().close();
  }
  const requested = (await world.stack.accounts.audit.page(ws, { action: 'client.approval_requested' })).entries;
  assert.equal(requested.length, 1, 'two attempts, one filing');
  assert.equal(requested[0]!.target, `client:${claude.clientId}`);
  const waiting = await o.management.listClientApprovals(o.actor, ws);
  assert.deepEqual(
    waiting.map((a) => [a.clientId, a.name, a.state, a.requestedBy]),
    [[claude.clientId, 'Claude', 'pending', o.email]],
  );

  await o.management.approveClient(o.actor, ws, claude.clientId);
  const resource = `${world.stack.baseUrl}/mcp/${o.slug}`;
  const config = await discovered(claude);
  const context = await world.browser.newContext();
  const { callback, verifier, state } = await authorizeInBrowser(context, config, {
    redirect: claude.redirect,
    resource,
    email: o.email,
    name: 'governance-05-approved',
    async onConsentPage(page) {
      assert.match((await page.textContent('#client-rule')) ?? '', /the owner's decision \(approved\)/);
    },
  });
  await context.close();
  const tokens = await oc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }, { resource });
  assert.equal((await mcpCall(world.stack.baseUrl, o.slug, tokens.access_token)).status, 200);

  // Denied later: the grant ends at once, so the gateway refuses its token (within a second).
  await o.management.denyClient(o.actor, ws, claude.clientId);
  await waitFor(async () => (await mcpCall(world.stack.baseUrl, o.slug, tokens.access_token)).status === 401, 'the token is refused');
  const denied = (await world.stack.accounts.audit.page(ws, { action: 'client.denied' })).entries;
  assert.equal(denied[0]?.detail?.['oauth_grants_revoked'], '1');
});
