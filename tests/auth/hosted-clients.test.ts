/**
 * The main hosted MCP clients by their Client ID Metadata Documents (fixtures in hosted-clients.ts;
 * docs/auth-service.md "Metadata choices"): each is fetched, consented to in chromium and its token
 * calls a tool through the gateway. ChatGPT's document offers `private_key_jwt` and `none`
 * (RP Metadata Choices); svc chooses `private_key_jwt`, so its token requests are signed with the
 * key at its jwks_uri, and an unsigned one is refused. The documents and key set are served from a
 * local server through the auth-service's fetch seam (as in cimd.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as oc from 'openid-client';
import { newPerson } from '../support/stack.ts';
import { authorizeInBrowser } from './authorize.ts';
import { mcpCall } from './gateway-call.ts';
import { HOSTED_CLIENTS, startHostedClients, type HostedClient, type HostedClientsWorld } from './hosted-clients.ts';

let world: HostedClientsWorld;

before(async () => {
  world = await startHostedClients();
});
after(() => world?.close());

/** The client as it authenticates at the token endpoint: signing with its key, or as a public client. */
function authOf(c: HostedClient): oc.ClientAuth {
  return c.jwksUri ? oc.PrivateKeyJwt({ key: world.privateKey, kid: 'test-1' }) : oc.None();
}

async function discovered(c: HostedClient, auth = authOf(c)) {
  return oc.discovery(new URL(world.stack.authUrl), c.clientId, undefined, auth, {
    algorithm: 'oauth2',
    execute: [oc.allowInsecureRequests],
  });
}

for (const c of HOSTED_CLIENTS) {
  test(`${c.name}: its metadata document registers it; consent in chromium; its token calls a tool; it refreshes`, async () => {
    const { stack, browser, fetched } = world;
    const who = await newPerson(stack, 'hosted');
    const resource = `${stack.baseUrl}/mcp/${who.slug}`;
    fetched.length = 0;
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
      // A token just used, within the window a public client's retry is answered in: still
      // refused without the signature (no kept answer skips the client's authentication), and
      // still good with it (a client that authenticates keeps its token: it does not rotate).
      await assert.rejects(oc.refreshTokenGrant(unsigned, String(tokens.refresh_token), { resource }), (err: unknown) => {
        assert.equal((err as { error?: string }).error, 'invalid_client');
        return true;
      });
      const again = await oc.refreshTokenGrant(config, String(tokens.refresh_token), { resource });
      assert.equal((await mcpCall(stack.baseUrl, who.slug, again.access_token)).status, 200);
    }
  });
}
