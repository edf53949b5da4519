/**
 * Client names, as registration checks them and as consent pages show them (docs/contract.md
 * "OAuth scopes and refresh", registration limits): one definition of the characters a name may
 * not hold and of the names only first-party clients carry.
 */
import { clientProfile, hasHiddenCharacters, nameSkeleton, withoutHiddenCharacters } from '@svc/accounts';
import { staticClients } from './clients.ts';

const MAX_CLIENT_NAME = 80;
const FIRST_PARTY_NAMES = new Set(staticClients().map((c) => nameSkeleton(String(c.client_name))));

/** Control, bidi or invisible characters (no-break and zero-width spaces among them: @svc/accounts names.ts). */
function hasUnsafeChars(name: string): boolean {
  return hasHiddenCharacters(name);
}

/**
 * True for a first-party client's name and its look-alikes (case, spacing, full-width or styled
 * letters, Cyrillic or Greek letters that look Latin: `nameSkeleton`).
 */
function isFirstPartyName(name: string): boolean {
  return FIRST_PARTY_NAMES.has(nameSkeleton(name));
}

/**
 * Why a client name is refused, or null (docs/management.md "Names"): the same rule for registered
 * clients and for the names in Client ID Metadata Documents.
 */
export function clientNameProblem(name: unknown): string | null {
  if (name === undefined) return null;
  if (typeof name !== 'string') return 'client_name must be a string';
  if ([...name].length > MAX_CLIENT_NAME) return `client_name may be at most ${MAX_CLIENT_NAME} characters`;
  if (hasUnsafeChars(name)) return 'client_name may not contain control, invisible or direction-changing characters';
  if (isFirstPartyName(name)) return 'client_name may not be the name of an svc client';
  return null;
}

/** First-party clients (the svc profiles) are the ones svc vouches for; registered and CIMD clients are not. */
export function isVerifiedClient(clientId: string): boolean {
  return clientProfile(clientId).verified;
}

/** A name fit to show: unsafe characters removed, at most 80 characters (an ellipsis marks a cut). */
export function displayClientName(name: string): string {
  const chars = [...withoutHiddenCharacters(name).trim()];
  return chars.length > MAX_CLIENT_NAME ? `${chars.slice(0, MAX_CLIENT_NAME - 1).join('')}…` : chars.join('');
}
