/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, oidc-provider's
 * `features.clientIdMetadataDocument`): an MCP client whose client_id is the https URL of its
 * metadata runs authorization code + PKCE end to end without registering, and its token works at
 * the gateway. oidc-provider fetches documents through an SSRF guard that refuses loopback
 * addresses, so the auth-service is given a fetch that serves `https://cimd.example.test/...` from
 * a local server (the one seam, StartAuthServiceOptions.fetch); everything else is the real path.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import * as oc from 'openid-client';
import type { Browser } from 'playwright-core';
import { parseCredential } from '@svc/credentials';
import { newPerson, type Stack } from '../support/stack.ts';
import { authorizeInBrowser } from './authorize.ts';
import { startStackAndBrowser, stopStackAndBrowser } from './browser.ts';
import { mcpCall } from './gateway-call.ts';

const HOST = 'cimd.example.test';
const CLIENT_ID = `https://${HOST}/client.json`;
const REDIRECT = 'http://127.0.0.1:53682/callback';

let stack: Stack;
let browser: Browser;
let documents: Server;
let fetched: string[] = [];
const served: Record<string, object> = {
  '/client.json': {
    client_id: CLIENT_ID,
    client_name: 'Metadata Example Client',
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  },
  '/lookalike.json': {
    client_id: `https://${HOST}/lookalike.json`,
    client_name: 'ѕvс MCP сlient',
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
  },
  '/invisible.json': {
    client_id: `https://${HOST}/invisible.json`,
    client_name: 'Acme\u00a0Tool\u200b',
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
  },
  '/mismatch.json': {
    client_id: `https://${HOST}/somebody-else.json`,
    client_name: 'Mismatch',
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
  },
};

before(async () => {
  documents = createServer((req, res) => {
    const doc = served[req.url ?? ''];
    res.setHeader('content-type', 'application/json');
    res.setHeader('cache-control', 'max-age=60');
    res.statusCode = doc ? 200 : 404;
    res.end(JSON.stringify(doc ?? { error: 'not found' }));
  });
  await new Promise<void>((ok) => documents.listen(0, '127.0.0.1', ok));
  const local = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
  ({ stack, browser } = await startStackAndBrowser(
    { CIMD_ALLOWED_HOSTS: HOST },
    {
      authFetch: async (url, options) => {
        const target = new URL(String(url));
        fetched.push(target.href);
        if (target.host !== HOST) return globalThis.fetch(url, options);
        // Our stand-in for DNS and TLS: the same request, to the local server, without the
        // provider's SSRF dispatcher (it would refuse 127.0.0.1, which is its job).
        const { dispatcher: _guard, ...rest } = options as RequestInit & { dispatcher?: unknown };
        return globalThis.fetch(`${local}${target.pathname}${target.search}`, rest);
      },
    },
  ));
});
after(async () => {
  await stopStackAndBrowser(stack, browser);
  documents.close();
});

async function discovered(clientId: string) {
  return oc.discovery(new URL(stack.authUrl), clientId, undefined, oc.None(), { algorithm: 'oauth2', execute: [oc.allowInsecureRequests] });
}

test('discovery advertises Client ID Metadata Document support', async () => {
  const meta = (await (await fetch(`${stack.authUrl}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
  assert.equal(meta['client_id_metadata_document_supported'], true);
});

test('a client identified by its metadata URL: authorize (approval names it) -> token -> tools/call', async () => {
  const who = await newPerson(stack, 'cimd');
  const config = await discovered(CLIENT_ID);
  const resource = `${stack.baseUrl}/mcp/${who.slug}`;
  fetched = [];
  const context = await browser.newContext();
  const { callback, verifier, state } = await authorizeInBrowser(context, config, {
    redirect: REDIRECT,
    resource,
    email: who.email,
    name: 'cimd',
    async onSignInPage(page) {
      // The sign-in page finds the client as the consent page does (Client.find), not by its record.
      assert.match((await page.textContent('main')) ?? '', /signing in for Metadata Example Client, an app not verified by svc/);
    },
    async onConsentPage(page) {
      const approval = (await page.textContent('main')) ?? '';
      assert.match(approval, /Metadata Example Client/, 'the approval page names the client from its document');
      assert.match(approval, new RegExp(who.slug), 'and the project');
    },
  });
  await context.close();
  assert.ok(fetched.includes(CLIENT_ID), 'the document was fetched from its URL');

  const tokens = await oc.authorizationCodeGrant(
    config,
    new URL(callback),
    { pkceCodeVerifier: verifier, expectedState: state },
    { resource },
  );
  assert.equal(parseCredential(tokens.access_token)?.kind, 'access_token');
  assert.equal((tokens as Record<string, unknown>)['project_slug'], who.slug);
  const call = await mcpCall(stack.baseUrl, who.slug, tokens.access_token);
  assert.equal(call.status, 200, JSON.stringify(call.body));
  const refreshed = await oc.refreshTokenGrant(config, String(tokens.refresh_token), { resource });
  assert.equal((await mcpCall(stack.baseUrl, who.slug, refreshed.access_token)).status, 200);
});

async function authorizeError(clientId: string): Promise<{ status: number; text: string }> {
  const url = new URL(`${stack.authUrl}/api/oauth/authorize`);
  url.search = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: 'mcp',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    resource: `${stack.baseUrl}/mcp/anything`,
  }).toString();
  const res = await fetch(url, { redirect: 'manual' });
  return { status: res.status, text: await res.text() };
}

test('a metadata URL on a host outside CIMD_ALLOWED_HOSTS is refused without a fetch', async () => {
  fetched = [];
  const r = await authorizeError('https://elsewhere.example.test/client.json');
  assert.equal(r.status, 400);
  assert.match(r.text, /invalid_client/);
  assert.deepEqual(fetched, []);
});

test('a document whose client_id is not its own URL is refused', async () => {
  const r = await authorizeError(`https://${HOST}/mismatch.json`);
  assert.equal(r.status, 400);
  assert.match(r.text, /invalid_client/);
});

test('a document naming itself like a first-party client, or with invisible characters in its name, is refused', async () => {
  for (const doc of ['lookalike', 'invisible']) {
    const r = await authorizeError(`https://${HOST}/${doc}.json`);
    assert.equal(r.status, 400, doc);
    assert.match(r.text, /invalid_client/, doc);
  }
});
