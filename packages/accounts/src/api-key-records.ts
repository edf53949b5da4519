/**
 * What goes in and out of the API key store (api-keys.ts): a new key's request, an issued key,
 * the pepper report, and a key record's Redis hash (docs/redis-schema.md).
 */
import type { KeyLevel } from '@svc/policy';
import { num } from './context.ts';
import { AccountError } from './errors.ts';
import { MAX_KEY_NOTE } from './key-controls.ts';
import { hasHiddenCharacters } from './names.ts';
import type { ApiKeyKind, ApiKeyRecord } from './types.ts';

/** Personal key lifetime (docs/contract.md "Lifetimes and constants"): 30 days. */
export const USER_KEY_TTL_SECONDS = 2_592_000;
/**
 * The project key create-svc writes into a folder's `.env`: 90 days (docs/auth-service.md
 * "create-svc's key"), at EDITOR.
 */
export const CREATE_SVC_KEY_TTL_SECONDS = 90 * 86_400;
/** Stored records outlive their expiry by this long, so a listing still shows them as expired. */
export const RECORD_GRACE_SECONDS = 7 * 86_400;

export interface IssuedKey {
  id: string;
  /** The clear key: returned once, never stored. */
  key: string;
  record: ApiKeyRecord;
}

/** What `svc-admin pepper status` reports (docs/operations.md "Rotating the key pepper"). */
export interface PepperStatus {
  /** Version of KEY_PEPPER. */
  current: string;
  /** Version of KEY_PEPPER_PREVIOUS, if set. */
  previous: string | null;
  /** Keys neither revoked nor expired. */
  live: number;
  /** Live keys the current pepper finds. */
  underCurrent: number;
  /** Live keys that still need an older pepper: not used since it was replaced. */
  waiting: { id: string; lastUsedAt: number | null }[];
}

export interface NewKey {
  kind: ApiKeyKind;
  name: string;
  level?: KeyLevel;
  project?: string;
  workspace?: string;
  userId?: string;
  botId?: string;
  clientId?: string;
  expiresInSeconds?: number;
  rateLimit?: number | null;
  note?: string;
  /** Addresses and CIDR blocks (normalizeAllowedIps); none: anywhere. */
  allowedIps?: readonly string[];
}

/** A key record as its Redis hash stores it (docs/redis-schema.md). */
export function serializeKey(r: ApiKeyRecord): Record<string, string> {
  return {
    id: r.id,
    kind: r.kind,
    hash: r.hash,
    prefix: r.prefix,
    name: r.name,
    level: r.level,
    project: r.project,
    workspace: r.workspace,
    userId: r.userId,
    botId: r.botId,
    clientId: r.clientId,
    createdAt: String(r.createdAt),
    expiresAt: r.expiresAt === null ? '' : String(r.expiresAt),
    revoked: r.revoked ? '1' : '0',
    disabled: r.disabled ? '1' : '0',
    note: r.note,
    allowedIps: r.allowedIps.join(','),
    replacedBy: r.replacedBy,
    lastUsedAt: r.lastUsedAt === null ? '' : String(r.lastUsedAt),
    rateLimit: r.rateLimit === null ? '' : String(r.rateLimit),
    pepper: r.pepper,
  };
}

/** A key record read back from its hash; absent fields empty. */
export function deserializeKey(h: Record<string, string>): ApiKeyRecord {
  return {
    id: h['id'] ?? '',
    kind: (h['kind'] ?? 'project_key') as ApiKeyKind,
    hash: h['hash'] ?? '',
    prefix: h['prefix'] ?? '',
    name: h['name'] ?? '',
    level: (h['level'] ?? '') as KeyLevel | '',
    project: h['project'] ?? '',
    workspace: h['workspace'] ?? '',
    userId: h['userId'] ?? '',
    botId: h['botId'] ?? '',
    clientId: h['clientId'] ?? '',
    createdAt: Number(h['createdAt']),
    expiresAt: num(h['expiresAt']),
    revoked: h['revoked'] === '1',
    disabled: h['disabled'] === '1',
    note: h['note'] ?? '',
    allowedIps: h['allowedIps'] ? h['allowedIps'].split(',') : [],
    replacedBy: h['replacedBy'] ?? '',
    lastUsedAt: num(h['lastUsedAt']),
    rateLimit: num(h['rateLimit']),
    pepper: h['pepper'] ?? '',
  };
}

/** A key's own rate limit is a whole number of requests per minute, or null for the plan's alone. */
export function checkRateLimit(limit: number | null): void {
  if (limit !== null && !(Number.isInteger(limit) && limit >= 1))
    throw new AccountError('invalid', "a key's rate limit must be a whole number of requests per minute, at least 1");
}

/**
 * A note as kept: one line (each run of white space, line breaks included, one space), at most
 * MAX_KEY_NOTE characters (code points), without control, invisible or direction-changing
 * characters (docs/management.md "Names": what a page shows is what is stored).
 */
export function checkNote(note: string): string {
  const text = note.replace(/\s+/gu, ' ').trim();
  if ([...text].length > MAX_KEY_NOTE) throw new AccountError('invalid', `a key's note holds at most ${MAX_KEY_NOTE} characters`);
  if (hasHiddenCharacters(text))
    throw new AccountError('invalid', "a key's note may not hold control, invisible or direction-changing characters");
  return text;
}
