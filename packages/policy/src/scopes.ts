/**
 * OAuth scopes of the MCP resource (docs/contract.md "OAuth scopes and refresh"): `mcp:read`,
 * `mcp:write` and `mcp:admin` cap a token at VIEWER, EDITOR and ADMIN; `mcp`, or no MCP scope at
 * all, leaves the person's own role. A token acts at the lower of the role and the cap.
 */
import { roleAtLeast, type KeyLevel, type Role } from './levels.ts';

export const MCP_SCOPES = ['mcp', 'mcp:read', 'mcp:write', 'mcp:admin'] as const;
export type McpScope = (typeof MCP_SCOPES)[number];

const CAPS: Record<Exclude<McpScope, 'mcp'>, KeyLevel> = { 'mcp:read': 'VIEWER', 'mcp:write': 'EDITOR', 'mcp:admin': 'ADMIN' };

/** The scope that caps a token at `level`. */
export function scopeForLevel(level: KeyLevel): McpScope {
  return level === 'VIEWER' ? 'mcp:read' : level === 'EDITOR' ? 'mcp:write' : 'mcp:admin';
}

/** The highest level a space-separated scope string allows; null when it sets no cap. */
function scopeCap(scope: string): KeyLevel | null {
  const scopes = scope.split(' ');
  if (scopes.includes('mcp')) return null;
  let cap: KeyLevel | null = null;
  for (const s of scopes) {
    const level = CAPS[s as keyof typeof CAPS] as KeyLevel | undefined;
    if (level && (!cap || roleAtLeast(level, cap))) cap = level;
  }
  return cap;
}

/** The lower of `role` and the cap of `scope`. */
export function effectiveRole(role: Role, scope: string): Role {
  const cap = scopeCap(scope);
  return cap && !roleAtLeast(cap, role) ? cap : role;
}
