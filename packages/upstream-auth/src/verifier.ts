/**
 * createSvcTokenVerifier(): the check an upstream MCP server runs on the bearer token svc forwards
 * to it (docs/upstream-servers.md "Verify the token"), shaped as the MCP SDK's `OAuthTokenVerifier`
 * so `requireBearerAuth({ verifier })` takes it. In order: the header (RFC 9068 §2.1 `typ`, ES256, a
 * `kid`) before any key is fetched; the signature against the issuer's JWK Set; `iss`, `aud`
 * (exactly the upstream's registered URL, RFC 9068 §4) and the times with their tolerance; the
 * lifetime; the profile's claims; last the `jti`, so only a token that passed everything else is
 * remembered.
 */
import { createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify } from 'jose';
import type { JWTPayload } from 'jose';
import { SvcTokenError, SvcVerifierError } from './errors.ts';
import type { RefusalReason } from './errors.ts';
import { JWKS_PATH, MAX_TOKEN_LIFETIME_SECONDS, SVC_TOKEN_ALGORITHM, SVC_TOKEN_TYPE, readProfileClaims } from './profile.ts';
import type { SvcAuthInfo } from './profile.ts';
import { DEFAULT_REPLAY_CACHE_SIZE, createReplayCache } from './replay-cache.ts';

/** Options of createSvcTokenVerifier(). */
export interface SvcTokenVerifierOptions {
  /** svc's public base URL, no trailing slash: the tokens' `iss`. */
  issuer: string;
  /** This server's URL exactly as registered in svc: the tokens' `aud`. */
  audience: string;
  /** Where the signing keys are published; default `{issuer}/.well-known/jwks.json`. */
  jwksUrl?: string;
  /** Clock skew allowed on `exp` and `iat`, in seconds; default 5. */
  clockToleranceSeconds?: number;
  /** 'refuse' (default): a `jti` seen before in this process is refused until its token expires. */
  replay?: 'refuse' | 'allow';
  /** The replay cache's bound, in tokens; default 100,000. */
  replayCacheSize?: number;
  /** Least time between two fetches of the key set for an unknown `kid`, in seconds; default 30. */
  jwksCooldownSeconds?: number;
  /**
   * Builds the error thrown for a refused token. The MCP SDK's bearer-auth middleware recognises
   * its own error class only (`instanceof`), so pass e.g. `(e) => new InvalidTokenError(e.message)`
   * (SDK v1) to have refusals answered 401 invalid_token; default: the SvcTokenError itself.
   */
  invalidTokenError?: (refusal: SvcTokenError) => Error;
  /** The clock, in milliseconds since the epoch; default Date.now. */
  now?: () => number;
}

/** The MCP SDK's `OAuthTokenVerifier`, returning the svc shape of `AuthInfo`. */
export interface SvcTokenVerifier {
  /** Verifies a token svc forwarded; throws on refusal (see SvcTokenVerifierOptions.invalidTokenError). */
  verifyAccessToken(token: string): Promise<SvcAuthInfo>;
}

/** A JWT longer than this is refused unread: svc's tokens are well under 2 KB. */
const MAX_TOKEN_LENGTH = 8192;
const REQUIRED_CLAIMS = ['iss', 'aud', 'sub', 'exp', 'iat', 'jti', 'client_id', 'scope', 'svc'];

/** Creates the verifier of svc's forwarded tokens for one upstream (one audience). */
export function createSvcTokenVerifier(options: SvcTokenVerifierOptions): SvcTokenVerifier {
  const { issuer, audience } = checkOptions(options);
  const now = options.now ?? Date.now;
  const tolerance = options.clockToleranceSeconds ?? 5;
  const jwks = createRemoteJWKSet(new URL(options.jwksUrl ?? `${issuer}${JWKS_PATH}`), {
    cooldownDuration: (options.jwksCooldownSeconds ?? 30) * 1000,
  });
  const replayCache =
    options.replay === 'allow' ? null : createReplayCache({ maxEntries: options.replayCacheSize ?? DEFAULT_REPLAY_CACHE_SIZE, now });
  const refuse = (reason: RefusalReason, cause?: unknown): Error => {
    const refusal = new SvcTokenError(reason, { cause });
    return options.invalidTokenError ? options.invalidTokenError(refusal) : refusal;
  };

  const verifySignedToken = async (token: string): Promise<JWTPayload> => {
    try {
      const { payload } = await jwtVerify(token, jwks, {
        issuer,
        audience,
        algorithms: [SVC_TOKEN_ALGORITHM],
        typ: SVC_TOKEN_TYPE,
        clockTolerance: tolerance,
        currentDate: new Date(now()),
        requiredClaims: REQUIRED_CLAIMS,
      });
      return payload;
    } catch (error) {
      const reason = refusalOf(error);
      if (reason === null) throw new SvcVerifierError('jwks_unavailable', `the key set at ${issuer} could not be read`, { cause: error });
      throw refuse(reason, error);
    }
  };

  return {
    async verifyAccessToken(token) {
      const headerRefusal = checkHeader(token);
      if (headerRefusal) throw refuse(headerRefusal);
      const payload = await verifySignedToken(token);
      // RFC 9068 §4: the audience is this server's identifier, compared as a string, one value.
      if (payload.aud !== audience) throw refuse('audience');
      const { exp, iat } = payload as { exp: number; iat: number };
      const nowSeconds = now() / 1000;
      if (iat > nowSeconds + tolerance) throw refuse('not_yet_valid');
      if (exp - iat > MAX_TOKEN_LIFETIME_SECONDS) throw refuse('lifetime');
      const claims = readProfileClaims(payload);
      if (!claims) throw refuse('claims');
      if (replayCache && !replayCache.claim(claims.extra.jti, (exp + tolerance) * 1000)) throw refuse('replayed');
      return { token, ...claims, expiresAt: exp, resource: new URL(audience) };
    },
  };
}

/** The refusal a header earns before any key is fetched, or null when it may be verified. */
function checkHeader(token: string): RefusalReason | null {
  if (token.length > MAX_TOKEN_LENGTH) return 'malformed';
  let header;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    return 'malformed';
  }
  if (header.alg !== SVC_TOKEN_ALGORITHM) return 'algorithm';
  // RFC 9068 §4: "at+jwt" (jose compares "application/at+jwt" as the same type).
  if (header.typ !== SVC_TOKEN_TYPE && header.typ !== `application/${SVC_TOKEN_TYPE}`) return 'type';
  if (typeof header.kid !== 'string' || header.kid === '') return 'malformed';
  return null;
}

/** The refusal a jose error stands for, or null when the verifier itself failed (the key set unreadable). */
function refusalOf(error: unknown): RefusalReason | null {
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case 'iss':
        return 'issuer';
      case 'aud':
        return 'audience';
      case 'typ':
        return 'type';
      case 'nbf':
        return 'not_yet_valid';
      default:
        return 'claims';
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) return 'algorithm';
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) return 'unknown_key';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'signature';
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return 'malformed';
  return null;
}

function checkOptions(options: SvcTokenVerifierOptions): { issuer: string; audience: string } {
  const { issuer, audience } = options;
  const url = URL.parse(issuer);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || issuer.endsWith('/')) {
    throw new TypeError(`issuer must be svc's base URL without a trailing slash, got ${JSON.stringify(issuer)}`);
  }
  if (typeof audience !== 'string' || !URL.canParse(audience)) {
    throw new TypeError(`audience must be this server's registered URL, got ${JSON.stringify(audience)}`);
  }
  if (options.replayCacheSize !== undefined && !(Number.isInteger(options.replayCacheSize) && options.replayCacheSize > 0)) {
    throw new TypeError('replayCacheSize must be a positive integer');
  }
  return { issuer, audience };
}
