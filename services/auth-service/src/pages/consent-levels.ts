/**
 * The access level a person grants on the consent page (docs/contract.md "OAuth scopes and
 * refresh"): any level up to the lower of their role and what the client asked for; the grant
 * records it as the token's scope. Keeping the level of the person's own role for a client that
 * asked for `mcp` records `mcp`, which follows the role if it changes later.
 */
import { isKeyLevel, roleAtLeast, scopeForLevel, type KeyLevel, type Role } from '@svc/policy';

const LEVELS: readonly KeyLevel[] = ['VIEWER', 'EDITOR', 'ADMIN'];

/** The levels the person may grant, lowest first (the last is the default). */
export function offeredLevels(role: Role, requestedScope: unknown): KeyLevel[] {
  const asked = typeof requestedScope === 'string' ? requestedScope.split(' ') : [];
  const askedAll = asked.includes('mcp') || !asked.some((s) => s.startsWith('mcp:'));
  return LEVELS.filter((l) => roleAtLeast(role, l) && (askedAll || asked.includes(scopeForLevel(l))));
}

/** The scope to grant for the level chosen in the form, or null when it is not one offered. */
export function grantedScope(role: Role, requestedScope: unknown, chosen: unknown): string | null {
  const offered = offeredLevels(role, requestedScope);
  const level = chosen === undefined ? offered.at(-1) : chosen;
  if (!isKeyLevel(level) || !offered.includes(level)) return null;
  const askedMcp = typeof requestedScope === 'string' && requestedScope.split(' ').includes('mcp');
  return askedMcp && level === role ? 'mcp' : scopeForLevel(level);
}
