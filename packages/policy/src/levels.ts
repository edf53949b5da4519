/** Project roles and key access levels (docs/contract.md "Access levels" and "Accounts"). */
const ROLES = ['NONE', 'VIEWER', 'EDITOR', 'ADMIN'] as const;
export type Role = (typeof ROLES)[number];
const KEY_LEVELS = ['VIEWER', 'EDITOR', 'ADMIN'] as const;
export type KeyLevel = (typeof KEY_LEVELS)[number];
export const DEFAULT_KEY_LEVEL: KeyLevel = 'EDITOR';

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function isKeyLevel(value: unknown): value is KeyLevel {
  return typeof value === 'string' && (KEY_LEVELS as readonly string[]).includes(value);
}

export function roleAtLeast(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

export const SURFACES = ['hosted', 'companion', 'orchestrator'] as const;
export type Surface = (typeof SURFACES)[number];

export function isSurface(value: unknown): value is Surface {
  return typeof value === 'string' && (SURFACES as readonly string[]).includes(value);
}
