/**
 * Checks a DPoP proof (RFC 9449 §4.3) presented with a DPoP-bound access token (§7.1): one
 * `DPoP` header, a JWS of type `dpop+jwt` signed with an allowed asymmetric algorithm by the
 * public key in its `jwk` header, that key being the one the token is bound to (its RFC 7638
 * thumbprint, compared before the signature is checked), for this request's method and URL,
 * recent, and naming the token by its hash. The jti is returned for the replay check
 * (docs/auth-service.md "DPoP"). Imported keys are kept by thumbprint: a client signs every
 * proof with one key, and importing it is 40% of a check's CPU time (docs/benchmarks.md "DPoP").
 */
import { createPublicKey, hash, type KeyObject } from 'node:crypto';
import { DPOP_SIGNING_ALGS } from '@svc/credentials';
import { SvcError } from '@svc/errors';
import { createTenantCache, type TenantCacheBounds } from '@svc/bounds';
import { decodeProtectedHeader, jwtVerify } from 'jose';

/** A proof is accepted when its `iat` is at most this many seconds before or after the gateway's clock. */
export const DPOP_IAT_WINDOW_SECONDS = 60;
/** A proof's jti is remembered this long: past it, the proof's iat is outside the window anyway. */
export const DPOP_REPLAY_TTL_SECONDS = 2 * DPOP_IAT_WINDOW_SECONDS;
/** The longest `DPoP` header read (an RSA-4096 key's proof is about 1,100 characters). */
export const DPOP_PROOF_MAX_LENGTH = 4096;
/** The longest jti accepted (RFC 9449 §4.2 asks for 96 bits of randomness: 16 base64url characters). */
export const DPOP_JTI_MAX_LENGTH = 128;
/**
 * Imported public keys kept, by workspace and thumbprint: 10,000 in all, 1,000 of one workspace
 * (docs/security.md "Shared pools, per-tenant shares"); past either the oldest goes.
 */
export const DPOP_KEY_CACHE: TenantCacheBounds = { entries: 10_000, perTenant: 1_000 };

/** Members of a JWK that only a private key has (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;
const ALGS: readonly string[] = DPOP_SIGNING_ALGS;

export interface ProvenRequest {
  jti: string;
}

export interface ProofInput {
  /** The `DPoP` header as node:http gives it. */
  header: string | string[] | undefined;
  method: string;
  /** The request's URL as the public base URL and the path name it (never Host or a forwarded header). */
  url: string;
  accessToken: string;
  /** The thumbprint the token is bound to (its record's `jkt`). */
  boundJkt: string;
  /** Whose share of the key cache the key is kept in: the workspace the token's caller acts for. */
  tenant: string;
  nowMs: number;
}

const refuse = (message: string, detail?: string) =>
  new SvcError('invalid_dpop_proof', { message: `Invalid DPoP proof: ${message}`, ...(detail ? { detail } : {}) });

/** A DPoP proof whose jti was seen before (docs/auth-service.md "DPoP"). */
export const replayed = () =>
  new SvcError('invalid_dpop_proof', {
    message: 'Invalid DPoP proof: this proof (its jti) was already used; sign a new one for each request',
  });

export type DpopProofCheck = ((input: ProofInput) => Promise<ProvenRequest>) & { keysHeld(tenant?: string): number };

type KeyOf = (tenant: string, jkt: string, jwk: Record<string, unknown>) => KeyObject;

/** RFC 7638 §3.2: the required members of each key type, in lexicographic order. */
const THUMBPRINT_MEMBERS: Record<string, readonly string[]> = {
  EC: ['crv', 'kty', 'x', 'y'],
  OKP: ['crv', 'kty', 'x'],
  RSA: ['e', 'kty', 'n'],
};

/** The RFC 7638 SHA-256 thumbprint of a public JWK; null for a key type without one here. */
export function jwkThumbprint(jwk: Record<string, unknown>): string | null {
  const members = typeof jwk['kty'] === 'string' ? THUMBPRINT_MEMBERS[jwk['kty']] : undefined;
  if (!members || members.some((m) => typeof jwk[m] !== 'string')) return null;
  return hash('sha256', JSON.stringify(Object.fromEntries(members.map((m) => [m, jwk[m]]))), 'base64url');
}

/** A proof checker with its own cache of imported keys. Throws invalid_dpop_proof (or invalid_token for another key) naming the first check failed. */
export function createDpopProofCheck(bounds: TenantCacheBounds = DPOP_KEY_CACHE): DpopProofCheck {
  const keys = createTenantCache<KeyObject>(bounds);
  const keyOf: KeyOf = (tenant, jkt, jwk) => {
    let key = keys.get(tenant, jkt);
    if (key) return key;
    try {
      key = createPublicKey({ key: jwk as never, format: 'jwk' });
    } catch {
      throw refuse('the jwk header is not a usable public key');
    }
    keys.set(tenant, jkt, key);
    return key;
  };
  return Object.assign((input: ProofInput) => checkDpopProof(input, keyOf), { keysHeld: (tenant?: string) => keys.held(tenant) });
}

async function checkDpopProof(input: ProofInput, keyOf: KeyOf): Promise<ProvenRequest> {
  const proof = input.header;
  if (proof === undefined || proof === '') throw refuse('the DPoP header is missing');
  // RFC 9449 §4.3 (1): exactly one proof; node:http joins repeated unknown headers with ", ".
  if (Array.isArray(proof) || proof.includes(',')) throw refuse('more than one DPoP header');
  if (proof.length > DPOP_PROOF_MAX_LENGTH) throw refuse(`the DPoP header is longer than ${DPOP_PROOF_MAX_LENGTH} characters`);
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(proof);
  } catch {
    throw refuse('not a JWS in compact serialization');
  }
  // RFC 9449 §4.3 (4)-(6): the type, an asymmetric algorithm we accept, a public key.
  if (header.typ !== 'dpop+jwt') throw refuse('typ must be dpop+jwt');
  if (typeof header.alg !== 'string' || !ALGS.includes(header.alg)) throw refuse(`alg must be one of ${ALGS.join(', ')}`);
  const jwk = header.jwk;
  if (!jwk || typeof jwk !== 'object') throw refuse('the jwk header must hold the public key');
  if (PRIVATE_MEMBERS.some((m) => m in jwk)) throw refuse('the jwk header must hold a public key, not a private or symmetric one');
  const jkt = jwkThumbprint(jwk as Record<string, unknown>);
  if (!jkt) throw refuse('the jwk header must be an EC, OKP or RSA public key');
  // RFC 9449 §7.1: the proof's key must be the one the token is bound to.
  if (jkt !== input.boundJkt)
    throw new SvcError('invalid_token', {
      message: 'Invalid OAuth token: the DPoP proof is signed by another key than the one the token is bound to',
      remedy: 'Sign the proof with the key the token was issued for.',
      scheme: 'DPoP',
    });
  const key = keyOf(input.tenant, jkt, jwk as Record<string, unknown>);
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(proof, key, { algorithms: [...ALGS], typ: 'dpop+jwt' }));
  } catch (err) {
    throw refuse('the signature does not verify with the key in its jwk header', String(err));
  }
  const { jti, htm, htu, iat, ath } = payload;
  if (typeof jti !== 'string' || jti === '' || jti.length > DPOP_JTI_MAX_LENGTH)
    throw refuse(`jti must be a string of 1 to ${DPOP_JTI_MAX_LENGTH} characters`);
  if (htm !== input.method) throw refuse(`htm must be ${input.method}`);
  const expected = normalizedHtu(input.url);
  if (typeof htu !== 'string' || normalizedHtu(htu) !== expected) throw refuse(`htu must be ${expected}`);
  if (typeof iat !== 'number' || Math.abs(input.nowMs / 1000 - iat) > DPOP_IAT_WINDOW_SECONDS)
    throw refuse(`iat must be within ${DPOP_IAT_WINDOW_SECONDS} seconds of the server's clock`);
  // RFC 9449 §4.3 (11), §7.1: ath is the base64url SHA-256 of the access token.
  if (ath !== hash('sha256', input.accessToken, 'base64url')) throw refuse('ath is not the hash of the access token presented');
  return { jti };
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/**
 * RFC 9449 §4.3 (9): the URI without query and fragment, normalized as RFC 3986 §6.2.2 and §6.2.3
 * say (case of scheme and host, default port, dot segments, percent-encoding); null when not an
 * http(s) URL.
 */
export function normalizedHtu(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  const path = url.pathname.replace(/%[0-9a-fA-F]{2}/g, (m) => {
    const c = String.fromCharCode(parseInt(m.slice(1), 16));
    return UNRESERVED.test(c) ? c : m.toUpperCase();
  });
  return `${url.protocol}//${url.host}${path}`;
}
