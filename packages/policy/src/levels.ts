/** Project roles and key access levels (spec "Access levels"; product-decisions "Accounts"). */
export const ROLES = ['NONE', 'VIEWER', 'EDITOR', 'ADMIN'] as const;
export type Role = (typeof ROLES)[number];
export const KEY_LEVELS = ['VIEWER', 'EDITOR', 'ADMIN'] as const;
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

/** The lower of two roles: a key's level capped by its owner's role. */
export function minRole(a: Role, b: Role): Role {
  return ROLES.indexOf(a) <= ROLES.indexOf(b) ? a : b;
}

export const SURFACES = ['hosted', 'companion', 'orchestrator'] as const;
export type Surface = (typeof SURFACES)[number];

export function isSurface(value: unknown): value is Surface {
  return typeof value === 'string' && (SURFACES as readonly string[]).includes(value);
}
