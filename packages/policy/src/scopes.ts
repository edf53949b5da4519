/**
 * OAuth scopes of the MCP resource (docs/contract.md "OAuth scopes and refresh"): `mcp:read`,
 * `mcp:write` and `mcp:admin` cap a token at VIEWER, EDITOR and ADMIN; in a token's scope, `mcp`
 * or no MCP scope sets no cap of its own. Whatever the token's scope says, the level the person
 * approved on the consent page (recorded as the Grant's resource scope) caps it too: a token acts
 * at the lowest of the role, the approved level and its scope's cap (docs/auth-service.md "Scopes").
 */
import { roleAtLeast, type KeyLevel, type Role } from './levels.ts';

export const MCP_SCOPES = ['mcp', 'mcp:read', 'mcp:write', 'mcp:admin'] as const;
export type McpScope = (typeof MCP_SCOPES)[number];

const CAPS: Record<Exclude<McpScope, 'mcp'>, KeyLevel> = { 'mcp:read': 'VIEWER', 'mcp:write': 'EDITOR', 'mcp:admin': 'ADMIN' };

/** The scope that caps a token at `level`. */
export function scopeForLevel(level: KeyLevel): McpScope {
  return level === 'VIEWER' ? 'mcp:read' : level === 'EDITOR' ? 'mcp:write' : 'mcp:admin';
}

/**
 * The highest level a space-separated scope string allows; null when it sets no cap (no level
 * scope, or `mcp`, the person's own role, when `ownRoleScope`).
 */
function scopeCap(scope: string, { ownRoleScope } = { ownRoleScope: true }): KeyLevel | null {
  const scopes = scope.split(' ');
  if (ownRoleScope && scopes.includes('mcp')) return null;
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

/**
 * The level a person approved on the consent page, from the scope the Grant records for the
 * token's resource: the highest explicit level in it. A Grant that records no level (`mcp`, an
 * empty or missing scope, one made before levels were recorded) approved nothing above reading:
 * VIEWER, so a token never acts above what its consent page showed.
 */
export function approvedLevel(grantScope: string | null | undefined): KeyLevel {
  return scopeCap(grantScope ?? '', { ownRoleScope: false }) ?? 'VIEWER';
}

/** The level a token acts at: the lowest of the person's role, the approved level and the token's scope. */
export function tokenRole(role: Role, approved: KeyLevel, tokenScope: string): Role {
  const capped = effectiveRole(role, tokenScope);
  return roleAtLeast(capped, approved) ? approved : capped;
}
