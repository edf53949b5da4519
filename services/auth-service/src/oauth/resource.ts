/**
 * MCP resource URLs (RFC 8707 resource indicators): a token is bound to one project through its
 * audience `{base_url}/mcp/<slug>` (docs/contract.md "Remote MCP OAuth" 3; MCP authorization: the resource
 * must equal the canonical MCP URL exactly).
 */
import { SLUG_PATTERN } from '@svc/accounts';

export function resourceFor(baseUrl: string, slug: string): string {
  return `${baseUrl}/mcp/${slug}`;
}

/** The project slug of an MCP resource URL of this base URL, or null. */
export function projectOfResource(baseUrl: string, resource: unknown): string | null {
  if (typeof resource !== 'string') return null;
  const prefix = `${baseUrl}/mcp/`;
  if (!resource.startsWith(prefix)) return null;
  const slug = resource.slice(prefix.length);
  return SLUG_PATTERN.test(slug) ? slug : null;
}
