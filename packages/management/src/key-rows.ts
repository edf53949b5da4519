/**
 * A project's keys as rows (docs/management.md "Key list"): each with its status (keyStatus, one
 * rule everywhere), what replaced it when it was rolled, and the filter a listing asks for.
 */
import { isKeyStatus, keyStatus, type ApiKeyRecord, type KeyStatus } from '@svc/accounts';
import { MAX_KEY_SEARCH } from './contract/defaults.ts';
import { ManagementError, type KeyFilter, type KeyRow } from './types.ts';

/** A filter as checked: a status (or every key, or every key but revoked ones) and a search. */
interface CheckedFilter {
  status: KeyStatus | 'all' | 'not-revoked';
  q: string;
}

/** The filter asked for, checked: a status or search that is not valid is a 400 naming it. */
export function keyFilterOf(filter: KeyFilter = {}): CheckedFilter {
  const status = filter.status ?? '';
  if (status !== '' && status !== 'all' && !isKeyStatus(status))
    throw new ManagementError(400, 'The status must be active, expiring, expired, revoked, disabled or all.', 'status');
  const q = (filter.q ?? '').trim();
  if ([...q].length > MAX_KEY_SEARCH) throw new ManagementError(400, `The search holds at most ${MAX_KEY_SEARCH} characters.`, 'q');
  return { status: status === '' ? 'not-revoked' : status, q: q.toLowerCase() };
}

/** One key as a row; `others` finds what replaced it. */
export function keyRow(k: ApiKeyRecord, now: number, others: ReadonlyMap<string, ApiKeyRecord> = new Map()): KeyRow {
  const by = k.replacedBy ? others.get(k.replacedBy) : undefined;
  return {
    id: k.id,
    name: k.name,
    level: k.level || '',
    prefix: k.prefix,
    createdAt: k.createdAt,
    expiresAt: k.expiresAt,
    lastUsedAt: k.lastUsedAt,
    status: keyStatus(k, now),
    rateLimit: k.rateLimit,
    note: k.note,
    allowedIps: k.allowedIps,
    replacedBy: k.replacedBy ? { id: k.replacedBy, name: by?.name ?? '', prefix: by?.prefix ?? '' } : null,
  };
}

/** The rows of `keys` the filter selects, newest first. */
export function keyRows(keys: readonly ApiKeyRecord[], now: number, filter: CheckedFilter): KeyRow[] {
  const byId = new Map(keys.map((k) => [k.id, k]));
  return keys
    .map((k) => keyRow(k, now, byId))
    .filter((r) => (filter.status === 'all' ? true : filter.status === 'not-revoked' ? r.status !== 'revoked' : r.status === filter.status))
    .filter((r) => !filter.q || [r.name, r.prefix, r.note].some((text) => text.toLowerCase().includes(filter.q)))
    .sort((a, b) => b.createdAt - a.createdAt);
}
