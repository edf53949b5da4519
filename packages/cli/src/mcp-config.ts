/**
 * MCP client configuration for a project endpoint, with the key read from an environment variable
 * by the client itself: never inlined (docs/contract.md "Key hygiene": never commit keys).
 */
import type { Surface } from '@svc/policy';

export const KEY_VARIABLE = 'SVC_API_KEY';

export interface ClientConfig {
  /** The client's name as `--client` takes it. */
  name: string;
  title: string;
  /** Where the client reads it, relative to the project folder. */
  file: string;
  config: Record<string, unknown>;
}

export function serverName(slug: string): string {
  return `svc-${slug}`;
}

export function mcpClientConfigs(endpoint: string, slug: string, surface?: Surface): ClientConfig[] {
  const name = serverName(slug);
  const headers = (key: string) => ({ 'X-API-Key': key, ...(surface ? { 'X-Svc-Surface': surface } : {}) });
  return [
    {
      name: 'claude',
      title: 'Claude Code (expands ${VAR} in .mcp.json)',
      file: '.mcp.json',
      config: { mcpServers: { [name]: { type: 'http', url: endpoint, headers: headers(`\${${KEY_VARIABLE}}`) } } },
    },
    {
      name: 'cursor',
      title: 'Cursor (expands ${env:VAR})',
      file: '.cursor/mcp.json',
      config: { mcpServers: { [name]: { url: endpoint, headers: headers(`\${env:${KEY_VARIABLE}}`) } } },
    },
    {
      name: 'vscode',
      title: 'VS Code (expands ${env:VAR})',
      file: '.vscode/mcp.json',
      config: { servers: { [name]: { type: 'http', url: endpoint, headers: headers(`\${env:${KEY_VARIABLE}}`) } } },
    },
  ];
}

/**
 * The `claude mcp add` line that writes the same entry into the folder's `.mcp.json`. Single quotes
 * keep `${SVC_API_KEY}` literal, so Claude Code expands it when it starts, not the shell now.
 */
export function claudeAddCommand(endpoint: string, slug: string, surface?: Surface): string {
  const header = (h: string) => ` --header '${h}'`;
  return `claude mcp add --transport http --scope project ${serverName(slug)} ${endpoint}${header(`X-API-Key: \${${KEY_VARIABLE}}`)}${surface ? header(`X-Svc-Surface: ${surface}`) : ''}`;
}

/** Cursor's install link (cursor.com/docs/mcp/install-links): the server's entry, base64 JSON. */
export function cursorInstallLink(endpoint: string, slug: string, surface?: Surface): string {
  const cursor = mcpClientConfigs(endpoint, slug, surface).find((c) => c.name === 'cursor')!;
  const entry = (cursor.config['mcpServers'] as Record<string, unknown>)[serverName(slug)];
  const config = Buffer.from(JSON.stringify(entry)).toString('base64');
  return `cursor://anysphere.cursor-deeplink/mcp/install?name=${encodeURIComponent(serverName(slug))}&config=${encodeURIComponent(config)}`;
}

/** `.mcp.json` merged: our server entry added or replaced, every other entry kept. */
export function mergeMcpJson(existing: unknown, endpoint: string, slug: string): Record<string, unknown> {
  const base = existing && typeof existing === 'object' && !Array.isArray(existing) ? { ...(existing as Record<string, unknown>) } : {};
  const servers =
    base['mcpServers'] && typeof base['mcpServers'] === 'object' ? { ...(base['mcpServers'] as Record<string, unknown>) } : {};
  const ours = (mcpClientConfigs(endpoint, slug)[0]!.config['mcpServers'] as Record<string, unknown>)[serverName(slug)];
  servers[serverName(slug)] = ours;
  base['mcpServers'] = servers;
  return base;
}

/**
 * The keyless setup (docs/cli.md "svc mcp-config"): the client is given the endpoint only. Its first
 * call is answered 401 with a `WWW-Authenticate` naming the protected resource metadata (RFC 9728),
 * which names the authorization server; the client registers, and the person signs in and consents
 * in the browser (MCP authorization spec). One line per common client, and the generic JSON.
 */
export interface OAuthSetup {
  claude: string;
  vscode: string;
  cursor: string;
  json: Record<string, unknown>;
}

export function oauthSetup(endpoint: string, slug: string, surface?: Surface): OAuthSetup {
  const name = serverName(slug);
  // The surface header, when asked for, travels as it does with a key (docs/contract.md "Surfaces").
  const headers = surface ? { headers: { 'X-Svc-Surface': surface } } : {};
  // Cursor's install link carries the server entry as base64 JSON (cursor.com/docs/mcp/install-links).
  const cursorEntry = Buffer.from(JSON.stringify({ url: endpoint, ...headers })).toString('base64');
  return {
    claude: `claude mcp add --transport http ${name} ${endpoint}${surface ? ` --header 'X-Svc-Surface: ${surface}'` : ''}`,
    vscode: `code --add-mcp '${JSON.stringify({ name, type: 'http', url: endpoint, ...headers })}'`,
    cursor: `cursor://anysphere.cursor-deeplink/mcp/install?name=${encodeURIComponent(name)}&config=${encodeURIComponent(cursorEntry)}`,
    json: { mcpServers: { [name]: { type: 'http', url: endpoint, ...headers } } },
  };
}
