/**
 * What a key, a roll or a decision gets when the person does not say (docs/management.md "The
 * contract"): one definition, read by the dashboard's forms, the management API's schemas and
 * the CLI's options.
 */
import type { KeyLevel } from '@svc/policy';

/** The levels a key, a member or a grant may have, lowest first. */
export const LEVELS = ['VIEWER', 'EDITOR', 'ADMIN'] as const satisfies readonly KeyLevel[];

export const KEY_DEFAULTS = {
  /** A new key's level, an approval's level, a new member's and a grant's suggested level. */
  level: 'VIEWER',
  /** How long a new key lives. */
  expires: '90d',
  /** How long a rolled key's predecessor keeps working. */
  overlap: '24h',
  /** The level of a key made before keys had levels: it acts as EDITOR (docs/management.md "The contract"). */
  unleveled: 'EDITOR',
} as const satisfies { level: KeyLevel; expires: string; overlap: string; unleveled: KeyLevel };

/** The longest text a key list's search (`q`) takes: 80 characters, a key name's length. */
export const MAX_KEY_SEARCH = 80;
