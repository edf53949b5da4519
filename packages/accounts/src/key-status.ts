/**
 * What a key's status means (docs/contract.md "Credentials", "Key status"): one rule, shared by the
 * dashboard, the management API and `svc key list`.
 */
import type { ApiKeyRecord } from './types.ts';

/** A key's status, most final first: revoked and expired keys never work again; a disabled one may. */
export const KEY_STATUSES = ['active', 'expiring', 'expired', 'revoked', 'disabled'] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];

/** A key is "expiring" when less than this remains of it (and less than EXPIRING_SHARE of its lifetime): 7 days. */
export const EXPIRING_WINDOW_MS = 7 * 86_400_000;
/**
 * The share of a key's whole lifetime that must remain for it not to be "expiring": a quarter. A
 * 7-day key is "expiring" in its last 42 hours, not from the day it is made; a key of 28 days or
 * more in its last 7 days.
 */
export const EXPIRING_SHARE = 0.25;

/** The status of `k` at `now` (Unix ms). */
export function keyStatus(k: Pick<ApiKeyRecord, 'revoked' | 'disabled' | 'createdAt' | 'expiresAt'>, now: number): KeyStatus {
  if (k.revoked) return 'revoked';
  if (k.expiresAt !== null && k.expiresAt <= now) return 'expired';
  if (k.disabled) return 'disabled';
  if (k.expiresAt === null) return 'active';
  const window = Math.min(EXPIRING_WINDOW_MS, EXPIRING_SHARE * (k.expiresAt - k.createdAt));
  return k.expiresAt - now < window ? 'expiring' : 'active';
}

export function isKeyStatus(value: unknown): value is KeyStatus {
  return (KEY_STATUSES as readonly unknown[]).includes(value);
}
