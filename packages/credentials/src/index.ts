/**
 * Credential formats of docs/contract.md "Credentials":
 * `<prefix><random><checksum>`, the random part 22 base62 characters (about 131 bits), the
 * checksum 6 base62 characters of the CRC-32 of prefix and random part. Base62 has no `-` or
 * `_`, so the longest matching prefix decides the kind without ambiguity, and a mistyped or
 * made-up value is refused here, before any storage is touched.
 */
import { createHash, createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

export { pooledRandomBytes } from './random-pool.ts';

export type CredentialKind =
  'project_key' | 'bot_key' | 'user_key' | 'scim_token' | 'access_token' | 'refresh_token' | 'legacy_project_key' | 'legacy_team_key';

/** Prefix of each kind; parse() tries them longest first. */
export const CREDENTIAL_PREFIXES = {
  bot_key: 'svc-bot-',
  user_key: 'svc-user-',
  /** A workspace's SCIM bearer token (docs/auth-service.md "SCIM provisioning"): the company's directory, not a person. */
  scim_token: 'svc-scim-',
  project_key: 'svc-',
  access_token: 'svc_at_',
  refresh_token: 'svc_rt_',
  legacy_team_key: 'rlm_team_',
  legacy_project_key: 'rlm_pk_',
} as const satisfies Record<CredentialKind, string>;

const BY_LENGTH = (Object.entries(CREDENTIAL_PREFIXES) as [CredentialKind, string][]).sort((a, b) => b[1].length - a[1].length);

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 22;
const CHECKSUM_LENGTH = 6;
const SECRET_PATTERN = /^[0-9A-Za-z]+$/;

/** Kinds that are API keys (sent in X-API-Key, or as a bearer). */
export const API_KEY_KINDS: ReadonlySet<CredentialKind> = new Set([
  'project_key',
  'bot_key',
  'user_key',
  'legacy_project_key',
  'legacy_team_key',
]);

export interface ParsedCredential {
  kind: CredentialKind;
  prefix: string;
  value: string;
  legacy: boolean;
}

function checksum(body: string): string {
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/** The random part alone: used where a token format is decided by a library (oidc-provider ids). */
export function randomSecret(length = RANDOM_LENGTH): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(62)];
  return out;
}

/** A new credential of the given kind, with its checksum. */
export function generateCredential(kind: CredentialKind): string {
  const body = CREDENTIAL_PREFIXES[kind] + randomSecret();
  return body + checksum(body);
}

/** The kind of a credential string, or null when it is malformed or its checksum is wrong. */
export function parseCredential(value: string): ParsedCredential | null {
  if (value.length > 128) return null;
  for (const [kind, prefix] of BY_LENGTH) {
    if (!value.startsWith(prefix)) continue;
    const secret = value.slice(prefix.length);
    if (secret.length !== RANDOM_LENGTH + CHECKSUM_LENGTH || !SECRET_PATTERN.test(secret)) return null;
    const body = value.slice(0, value.length - CHECKSUM_LENGTH);
    const given = Buffer.from(value.slice(-CHECKSUM_LENGTH));
    if (!timingSafeEqual(given, Buffer.from(checksum(body)))) return null;
    return { kind, prefix, value, legacy: kind.startsWith('legacy_') };
  }
  return null;
}

/** The kind a value claims by its prefix alone, for choosing an error message. */
export function claimedKind(value: string): CredentialKind | null {
  for (const [kind, prefix] of BY_LENGTH) if (value.startsWith(prefix)) return kind;
  return null;
}

/**
 * A pepper's version: a short fingerprint stored beside each key record, so an operator can tell
 * which keys still need a pepper being retired (docs/operations.md "Rotating the key pepper").
 * The pepper is a secret of at least 32 characters: 48 bits of its SHA-256 reveal nothing of it.
 */
export function pepperVersion(pepper: string): string {
  return createHash('sha256').update(`svc key pepper\0${pepper}`).digest('hex').slice(0, 12);
}

/** Keyed hash under which a credential is stored (HMAC-SHA-256 with the server pepper, hex). */
export function hashCredential(value: string, pepper: string): string {
  return createHmac('sha256', pepper).update(value).digest('hex');
}

/**
 * Short, safe-to-show form of a credential: its prefix and the first four secret characters, then
 * `...`. ASCII on purpose: it shows the same in every terminal and log, and a single character
 * outside ASCII in a tool's answer (svc_help names the caller's key) makes the gateway build and
 * write the whole body as a two-byte string, measured a third slower (docs/benchmarks.md).
 */
export function displayPrefix(value: string): string {
  const kind = claimedKind(value);
  const prefix = kind ? CREDENTIAL_PREFIXES[kind] : '';
  return `${prefix}${value.slice(prefix.length, prefix.length + 4)}...`;
}

/** A regular expression matching any credential shape, for redaction in logs. */
export const CREDENTIAL_PATTERN = /\b(svc-bot-|svc-user-|svc-scim-|svc_at_|svc_rt_|rlm_team_|rlm_pk_|svc-)([0-9A-Za-z]{4})[0-9A-Za-z]{4,}/g;

/**
 * The JWS algorithms a DPoP proof may be signed with (RFC 9449 §5.1 `dpop_signing_alg_values_supported`):
 * asymmetric only (RFC 9449 §11.6 forbids `none` and MACs). The auth-service's token endpoint and
 * the gateway accept the same list, and both advertise it (docs/auth-service.md "DPoP").
 */
export const DPOP_SIGNING_ALGS = ['ES256', 'EdDSA', 'Ed25519', 'PS256', 'RS256'] as const;

export { seal, unseal } from './sealed.ts';
