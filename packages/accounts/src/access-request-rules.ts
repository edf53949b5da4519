/**
 * The rules of the access-request lifecycle (docs/management.md "Access request lifecycle"): how
 * long its cooldowns last, how much history a project keeps, and what a reason may hold.
 */
import type { Requester } from './types.ts';

/** The longest reason, in characters: a longer one is refused by the tool and the management API, and cut here. */
export const MAX_REASON_LENGTH = 1000;

/**
 * docs/management.md "Access request lifecycle": the admins are mailed about a requester's
 * pending request at most once an hour, however often it is repeated, and a requester who was
 * denied may ask again for that project after a day.
 */
export const ACCESS_REQUEST_TIMING = {
  notifyCooldownMs: 3_600_000,
  denialCooldownMs: 86_400_000,
} as const;

/**
 * docs/management.md "Access request lifecycle": a project keeps its last 200 decided requests
 * (by when they were asked) besides the pending ones. The decided list is a working view of
 * recent decisions; every decision is also an audit entry (`access_request.approved`, `.denied`),
 * the lasting record. 200 is months of decisions for a busy team, and with the 500 pending
 * (COLLECTION_LIMITS) keeps a project's whole history one bounded read.
 */
export const DECIDED_REQUESTS_KEPT = 200;

/** A requester's field in the project's latest-request hash. */
export const requesterField = (r: Requester) => `${r.type}:${r.id}`;

/** The reason as stored: controls other than line feeds dropped, at most MAX_REASON_LENGTH characters. */
export function cleanReason(reason: string): string {
  const text = reason
    .replace(/\r\n?/g, '\n')
    // eslint-disable-next-line no-control-regex -- removing control characters is what it is for
    .replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/gu, '');
  return [...text.trim()].slice(0, MAX_REASON_LENGTH).join('');
}
