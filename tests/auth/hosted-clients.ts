/**
 * Client ID Metadata Documents shaped like the ones the main hosted MCP clients publish (their
 * public documents and docs, read in 2026): the fields, methods and redirect URIs they use, with
 * the hosts kept and the ids and keys our own. ChatGPT offers `private_key_jwt` and `none` (OpenID
 * Connect RP Metadata Choices 1.0, `token_endpoint_auth_methods_supported`) with an RS256 key set
 * at its jwks_uri; Claude and VS Code are public clients. The tests serve them from a local server.
 */

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
