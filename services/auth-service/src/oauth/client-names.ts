/**
 * Client names, as registration checks them and as consent pages show them (docs/contract.md
 * "OAuth scopes and refresh", registration limits): one definition of the characters a name may
 * not hold and of the names only first-party clients carry.
 */
import { isProfile, staticClients } from '../provider/clients.ts';

export const MAX_CLIENT_NAME = 80;
/** C0 and C1 controls, and the bidirectional marks, embeddings, overrides and isolates (Unicode UAX #9). */
// eslint-disable-next-line no-control-regex -- finding control characters is what it is for
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
const FIRST_PARTY_NAMES = new Set(staticClients().map((c) => String(c.client_name).toLowerCase()));

export function hasUnsafeChars(name: string): boolean {
  UNSAFE_CHARS.lastIndex = 0;
  return UNSAFE_CHARS.test(name);
}

export function isFirstPartyName(name: string): boolean {
  return FIRST_PARTY_NAMES.has(name.trim().toLowerCase());
}

/** First-party clients (the svc profiles) are the ones svc vouches for; registered and CIMD clients are not. */
export function isVerifiedClient(clientId: string): boolean {
  return isProfile(clientId);
}

/** A name fit to show: unsafe characters removed, at most 80 characters (an ellipsis marks a cut). */
export function displayClientName(name: string): string {
  const chars = [...name.replace(UNSAFE_CHARS, '').trim()];
  return chars.length > MAX_CLIENT_NAME ? `${chars.slice(0, MAX_CLIENT_NAME - 1).join('')}…` : chars.join('');
}
