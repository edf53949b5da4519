/**
 * Checks a DPoP proof (RFC 9449 §4.3) presented with a DPoP-bound access token (§7.1): one
 * `DPoP` header, a JWS of type `dpop+jwt` signed with an allowed asymmetric algorithm by the
 * public key in its `jwk` header, for this request's method and URL, recent, and naming the token
 * by its hash. The key's thumbprint is returned for the caller to compare with the token's
 * binding; the jti is returned for the replay check (docs/auth-service.md "DPoP").
 */
import { hash } from 'node:crypto';
import { DPOP_SIGNING_ALGS } from '@svc/credentials';
import { SvcError } from '@svc/errors';
import { calculateJwkThumbprint, decodeProtectedHeader, EmbeddedJWK, jwtVerify, type JWK } from 'jose';

/** A proof is accepted when its `iat` is at most this many seconds before or after the gateway's clock. */
export const DPOP_IAT_WINDOW_SECONDS = 60;
/** A proof's jti is remembered this long: past it, the proof's iat is outside the window anyway. */
export const DPOP_REPLAY_TTL_SECONDS = 2 * DPOP_IAT_WINDOW_SECONDS;
/** The longest `DPoP` header read (an RSA-4096 key's proof is about 1,100 characters). */
export const DPOP_PROOF_MAX_LENGTH = 4096;
/** The longest jti accepted (RFC 9449 §4.2 asks for 96 bits of randomness: 16 base64url characters). */
export const DPOP_JTI_MAX_LENGTH = 128;

/** Members of a JWK that only a private key has (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;
const ALGS: readonly string[] = DPOP_SIGNING_ALGS;

export interface ProvenRequest {
  /** Thumbprint (RFC 7638, SHA-256) of the key that signed the proof. */
  jkt: string;
  jti: string;
}

export interface ProofInput {
  /** The `DPoP` header as node:http gives it. */
  header: string | string[] | undefined;
  method: string;
  /** The request's URL as the public base URL and the path name it (never Host or a forwarded header). */
  url: string;
  accessToken: string;
  nowMs: number;
}

const refuse = (message: string, detail?: string) =>
  new SvcError('invalid_dpop_proof', { message: `Invalid DPoP proof: ${message}`, ...(detail ? { detail } : {}) });

/** Throws invalid_dpop_proof naming the first check the proof fails. */
export async function checkDpopProof(input: ProofInput): Promise<ProvenRequest> {
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
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(proof, EmbeddedJWK, { algorithms: [...ALGS], typ: 'dpop+jwt' }));
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
  return { jkt: await calculateJwkThumbprint(jwk as JWK, 'sha256'), jti };
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
