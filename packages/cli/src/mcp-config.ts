/**
 * MCP client configuration for a project endpoint, with the key read from an environment variable
 * by the client itself: never inlined (docs/contract.md "Key hygiene": never commit keys).
 */
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

export function mcpClientConfigs(endpoint: string, slug: string, variable = KEY_VARIABLE): ClientConfig[] {
  const name = serverName(slug);
  return [
    {
      name: 'claude',
      title: 'Claude Code (expands ${VAR} in .mcp.json)',
      file: '.mcp.json',
      config: { mcpServers: { [name]: { type: 'http', url: endpoint, headers: { 'X-API-Key': `\${${variable}}` } } } },
    },
    {
      name: 'cursor',
      title: 'Cursor (expands ${env:VAR})',
      file: '.cursor/mcp.json',
      config: { mcpServers: { [name]: { url: endpoint, headers: { 'X-API-Key': `\${env:${variable}}` } } } },
    },
    {
      name: 'vscode',
      title: 'VS Code (expands ${env:VAR})',
      file: '.vscode/mcp.json',
      config: { servers: { [name]: { type: 'http', url: endpoint, headers: { 'X-API-Key': `\${env:${variable}}` } } } },
    },
  ];
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
