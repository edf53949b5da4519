/**
 * Client ID Metadata Documents shaped like the ones the main hosted MCP clients publish (their
 * public documents and docs, read in 2026): the fields, methods and redirect URIs they use, with
 * the hosts kept and the ids and keys our own. ChatGPT offers `private_key_jwt` and `none` (OpenID
 * Connect RP Metadata Choices 1.0, `token_endpoint_auth_methods_supported`) with an RS256 key set
 * at its jwks_uri; Claude and VS Code are public clients. The tests serve them from a local server.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import type { Browser } from 'playwright-core';
import type { Stack } from '../support/stack.ts';
import { startStackAndBrowser, stopStackAndBrowser } from './browser.ts';

export interface HostedClient {
  name: string;
  host: string;
  clientId: string;
  redirect: string;
  /** The document, as published at clientId. */
  document: Record<string, unknown>;
  /** The key set's URL, for a client that signs its token requests. */
  jwksUri?: string;
}

const CHATGPT_ID = 'https://chatgpt.com/oauth/sVcTeStClIeNt/client.json';
const CLAUDE_ID = 'https://claude.ai/oauth/mcp-oauth-client-metadata';
const VSCODE_ID = 'https://vscode.dev/oauth/client-metadata.json';

export const HOSTED_CLIENTS: readonly HostedClient[] = [
  {
    name: 'ChatGPT',
    host: 'chatgpt.com',
    clientId: CHATGPT_ID,
    redirect: 'https://chatgpt.com/connector_platform_oauth_redirect',
    jwksUri: 'https://chatgpt.com/oauth/jwks.json',
    document: {
      client_id: CHATGPT_ID,
      client_name: 'ChatGPT',
      client_uri: 'https://chatgpt.com/',
      logo_uri: 'https://chatgpt.com/logo.png',
      redirect_uris: ['https://chatgpt.com/connector_platform_oauth_redirect'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
      token_endpoint_auth_signing_alg: 'RS256',
      jwks_uri: 'https://chatgpt.com/oauth/jwks.json',
    },
  },
  {
    name: 'Claude',
    host: 'claude.ai',
    clientId: CLAUDE_ID,
    redirect: 'https://claude.ai/api/mcp/auth_callback',
    document: {
      client_id: CLAUDE_ID,
      client_name: 'Claude',
      client_uri: 'https://claude.ai',
      redirect_uris: ['https://claude.ai/api/mcp/auth_callback', 'https://claude.com/api/mcp/auth_callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
  },
  {
    name: 'Visual Studio Code',
    host: 'vscode.dev',
    clientId: VSCODE_ID,
    redirect: 'http://127.0.0.1:33418/',
    document: {
      client_id: VSCODE_ID,
      client_name: 'Visual Studio Code',
      client_uri: 'https://code.visualstudio.com/',
      redirect_uris: ['http://127.0.0.1:33418/', 'https://vscode.dev/redirect'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
  },
];

/** The stack, chromium and the local server publishing the documents (and ChatGPT's key set). */
export interface HostedClientsWorld {
  stack: Stack;
  browser: Browser;
  /** Every URL the auth-service fetched, in order (the test may empty it). */
  fetched: string[];
  /** ChatGPT's private key, the one its key set publishes (kid `test-1`). */
  privateKey: CryptoKey;
  close(): Promise<void>;
}

/**
 * Starts the stack with CIMD_ALLOWED_HOSTS naming the hosted clients' hosts, and the one seam
 * (the auth-service's fetch) sending their URLs to a local server: our stand-in for DNS and TLS.
 */
export async function startHostedClients(env: Record<string, string> = {}): Promise<HostedClientsWorld> {
  const pair = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'test-1', use: 'sig', alg: 'RS256' };
  const served = new Map<string, object>();
  for (const c of HOSTED_CLIENTS) {
    served.set(c.clientId, c.document);
    if (c.jwksUri) served.set(c.jwksUri, { keys: [jwk] });
  }
  const documents = createServer((req, res) => {
    const doc = served.get(`https://${String(req.headers['x-host'])}${req.url ?? ''}`);
    res.setHeader('content-type', 'application/json');
    res.setHeader('cache-control', 'max-age=300');
    res.statusCode = doc ? 200 : 404;
    res.end(JSON.stringify(doc ?? { error: 'not found' }));
  });
  await new Promise<void>((ok) => documents.listen(0, '127.0.0.1', ok));
  const local = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
  const fetched: string[] = [];
  const { stack, browser } = await startStackAndBrowser(
    { CIMD_ALLOWED_HOSTS: HOSTED_CLIENTS.map((c) => c.host).join(','), ...env },
    {
      authFetch: async (url, options) => {
        const target = new URL(String(url));
        fetched.push(target.href);
        // The same request to the local server, naming the host, without the provider's SSRF
        // dispatcher (it would refuse 127.0.0.1, which is its job).
        const { dispatcher: _guard, ...rest } = options as RequestInit & { dispatcher?: unknown };
        const headers = new Headers(rest.headers);
        headers.set('x-host', target.host);
        return globalThis.fetch(`${local}${target.pathname}${target.search}`, { ...rest, headers });
      },
    },
  );
  return {
    stack,
    browser,
    fetched,
    privateKey: pair.privateKey,
    async close() {
      await stopStackAndBrowser(stack, browser);
      documents.close();
    },
  };
}
