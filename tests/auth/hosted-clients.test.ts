/**
 * The main hosted MCP clients by their Client ID Metadata Documents (fixtures in hosted-clients.ts;
 * docs/auth-service.md "Metadata choices"): each is fetched, consented to in chromium and its token
 * calls a tool through the gateway. ChatGPT's document offers `private_key_jwt` and `none`
 * (RP Metadata Choices); svc chooses `private_key_jwt`, so its token requests are signed with the
 * key at its jwks_uri, and an unsigned one is refused. The documents and key set are served from a
 * local server through the auth-service's fetch seam (as in cimd.test.ts).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { exportJWK, generateKeyPair } from 'jose';
import * as oc from 'openid-client';
import type { Browser } from 'playwright-core';
import { newPerson, type Stack } from '../support/stack.ts';
import { authorizeInBrowser } from './authorize.ts';
import { startStackAndBrowser, stopStackAndBrowser } from './browser.ts';
import { mcpCall } from './gateway-call.ts';
import { HOSTED_CLIENTS, type HostedClient } from './hosted-clients.ts';

let stack: Stack;
let browser: Browser;
let documents: Server;
let fetched: string[] = [];
let privateKey: CryptoKey;
const served = new Map<string, object>();

before(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true });
  privateKey = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'test-1', use: 'sig', alg: 'RS256' };
  for (const c of HOSTED_CLIENTS) {
    served.set(c.clientId, c.document);
    if (c.jwksUri) served.set(c.jwksUri, { keys: [jwk] });
  }
  documents = createServer((req, res) => {
    const doc = served.get(`https://${String(req.headers['x-host'])}${req.url ?? ''}`);
    res.setHeader('content-type', 'application/json');
    res.setHeader('cache-control', 'max-age=300');
    res.statusCode = doc ? 200 : 404;
    res.end(JSON.stringify(doc ?? { error: 'not found' }));
  });
  await new Promise<void>((ok) => documents.listen(0, '127.0.0.1', ok));
  const local = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
  ({ stack, browser } = await startStackAndBrowser(
    { CIMD_ALLOWED_HOSTS: HOSTED_CLIENTS.map((c) => c.host).join(',') },
    {
      authFetch: async (url, options) => {
        const target = new URL(String(url));
        fetched.push(target.href);
        // Our stand-in for DNS and TLS: the same request, to the local server, naming the host.
        const { dispatcher: _guard, ...rest } = options as RequestInit & { dispatcher?: unknown };
        const headers = new Headers(rest.headers);
        headers.set('x-host', target.host);
        return globalThis.fetch(`${local}${target.pathname}${target.search}`, { ...rest, headers });
      },
    },
  ));
});
after(async () => {
  await stopStackAndBrowser(stack, browser);
  documents.close();
});

/** The client as it authenticates at the token endpoint: signing with its key, or as a public client. */
function authOf(c: HostedClient): oc.ClientAuth {
  return c.jwksUri ? oc.PrivateKeyJwt({ key: privateKey, kid: 'test-1' }) : oc.None();
}

async function discovered(c: HostedClient, auth = authOf(c)) {
  return oc.discovery(new URL(stack.authUrl), c.clientId, undefined, auth, { algorithm: 'oauth2', execute: [oc.allowInsecureRequests] });
}

for (const c of HOSTED_CLIENTS) {
  test(`${c.name}: its metadata document registers it; consent in chromium; its token calls a tool; it refreshes`, async () => {
    const who = await newPerson(stack, 'hosted');
    const resource = `${stack.baseUrl}/mcp/${who.slug}`;
    fetched = [];
    const config = await discovered(c);
    const context = await browser.newContext();
    const { callback, verifier, state } = await authorizeInBrowser(context, config, {
      redirect: c.redirect,
      resource,
      email: who.email,
      name: `hosted-${c.host}`,
      async onConsentPage(page) {
        const text = (await page.textContent('main')) ?? '';
        assert.match(text, new RegExp(c.name), 'the consent page names the client from its document');
      },
    });
    await context.close();
    assert.ok(fetched.includes(c.clientId), 'the document was fetched from its URL');
    const tokens = await oc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }, { resource });
    const call = await mcpCall(stack.baseUrl, who.slug, tokens.access_token);
    assert.equal(call.status, 200, JSON.stringify(call.body));
    const refreshed = await oc.refreshTokenGrant(config, String(tokens.refresh_token), { resource });
    assert.equal((await mcpCall(stack.baseUrl, who.slug, refreshed.access_token)).status, 200);
    if (c.jwksUri) {
      // Two signed token requests, one key set fetch: the keys are kept (cimd-fetch.ts).
      assert.equal(fetched.filter((u) => u === c.jwksUri).length, 1, fetched.join(' '));
      // svc chose private_key_jwt: the same client without its signature is refused.
      const unsigned = await discovered(c, oc.None());
      await assert.rejects(oc.refreshTokenGrant(unsigned, String(refreshed.refresh_token), { resource }), (err: unknown) => {
        assert.equal((err as { error?: string }).error, 'invalid_client');
        return true;
      });
    }
  });
}
