/**
 * The access level a person grants on the consent page (docs/auth-service.md "Scopes";
 * docs/contract.md "OAuth scopes and refresh"): any level up to the lower of their role and what
 * the client asked for, EDITOR preselected (or the highest offered, when that is lower), ADMIN
 * only when chosen. The Grant records the level as its resource scope (`mcp:read|write|admin`),
 * whatever scope the client asked for; the gateway reads it there, so a token never acts above
 * the level the page showed, even when its own scope holds no MCP scope (`openid`).
 */
import { isKeyLevel, roleAtLeast, scopeForLevel, type KeyLevel, type Role } from '@svc/policy';

const LEVELS: readonly KeyLevel[] = ['VIEWER', 'EDITOR', 'ADMIN'];

/** The level preselected when the person may grant it: never ADMIN unless chosen. */
const PRESELECTED: KeyLevel = 'EDITOR';

/** The levels the person may grant, lowest first. */
export function offeredLevels(role: Role, requestedScope: unknown): KeyLevel[] {
  const asked = typeof requestedScope === 'string' ? requestedScope.split(' ') : [];
  const askedAll = asked.includes('mcp') || !asked.some((s) => s.startsWith('mcp:'));
  return LEVELS.filter((l) => roleAtLeast(role, l) && (askedAll || asked.includes(scopeForLevel(l))));
}

/** The level selected when the page opens: EDITOR, or the highest offered when that is lower. */
export function preselectedLevel(offered: readonly KeyLevel[]): KeyLevel | undefined {
  return offered.includes(PRESELECTED) ? PRESELECTED : offered.filter((l) => !roleAtLeast(l, PRESELECTED)).at(-1);
}

/**
 * The scope to record for the level chosen in the form (the preselected one when the form sent
 * none), or null when it is not one offered.
 */
export function grantedScope(role: Role, requestedScope: unknown, chosen: unknown): string | null {
  const offered = offeredLevels(role, requestedScope);
  const level = chosen === undefined ? preselectedLevel(offered) : chosen;
  if (!isKeyLevel(level) || !offered.includes(level)) return null;
  return scopeForLevel(level);
}

/**
 * The project-selection page offers levels before the project (and so the role) is known: the
 * level recorded is the one chosen, lowered to the role on the project chosen.
 */
export function grantedScopeForSelection(role: Role, requestedScope: unknown, chosen: unknown): string | null {
  const offered = offeredLevels('ADMIN', requestedScope);
  const level = chosen === undefined ? preselectedLevel(offered) : chosen;
  if (!isKeyLevel(level) || !offered.includes(level)) return null;
  return grantedScope(role, requestedScope, roleAtLeast(role, level) ? level : role);
}

/** The level of create-svc's project key, and of its own token: named on its consent page. */
export const CREATE_SVC_KEY_LEVEL: KeyLevel = 'EDITOR';
