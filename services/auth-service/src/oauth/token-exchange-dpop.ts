/**
 * The sender constraint of a token exchange (RFC 9449; docs/auth-service.md "Delegation (token
 * exchange)"). oidc-provider checks DPoP proofs for its own grants only and gives a registered
 * grant no helper, so the proof at the token endpoint (RFC 9449 §4.3, §5) is checked here: one
 * `DPoP` header, a JWS of type `dpop+jwt` signed with an algorithm of DPOP_SIGNING_ALGS by the
 * public key in its `jwk` header, `htm` POST, `htu` the token endpoint, a recent `iat`, and a
 * `jti` seen once (the provider's ReplayDetection, in the shared Redis: docs/security.md
 * "Single-use values"). The delegated token is bound to the proof's key; a DPoP-bound parent is
 * exchanged only with a proof of its own key, so a copied bound token cannot be laundered into a
 * token bound to another key, or into a bearer token.
 */
import { DPOP_SIGNING_ALGS } from '@svc/credentials';
import { calculateJwkThumbprint, EmbeddedJWK, jwtVerify, type JWK } from 'jose';
import { errors, type AccessToken, type KoaContextWithOIDC } from 'oidc-provider';

/** A proof's `iat` may be this many seconds before or after our clock, as at the gateway. */
export const EXCHANGE_DPOP_IAT_WINDOW_SECONDS = 60;
/** The longest `DPoP` header read, as at the gateway. */
const DPOP_PROOF_MAX_LENGTH = 4096;
/** The longest `jti` accepted, as at the gateway. */
const DPOP_JTI_MAX_LENGTH = 128;

const badProof = (description: string) => new errors.InvalidDpopProof(`invalid DPoP proof: ${description}`);

/** The token endpoint's URL as the proof must name it: no query, no fragment (RFC 9449 §4.3 (9)). */
function sameEndpoint(htu: unknown, endpoint: string): boolean {
  const url = typeof htu === 'string' ? URL.parse(htu) : null;
  if (!url) return false;
  url.search = '';
  url.hash = '';
  return url.href === new URL(endpoint).href;
}

/** The RFC 7638 thumbprint of the key of the request's DPoP proof, once checked and claimed; null without a proof. */
async function proofKey(ctx: KoaContextWithOIDC): Promise<string | null> {
  const proof = ctx.get('DPoP');
  if (!proof) return null;
  // RFC 9449 §4.3 (1): one proof; node:http joins a repeated header with ", ".
  if (proof.includes(',')) throw badProof('more than one DPoP header');
  if (proof.length > DPOP_PROOF_MAX_LENGTH) throw badProof(`the DPoP header is longer than ${DPOP_PROOF_MAX_LENGTH} characters`);
  let verified: Awaited<ReturnType<typeof jwtVerify>>;
  try {
    verified = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: [...DPOP_SIGNING_ALGS] });
  } catch {
    throw badProof('not a dpop+jwt signed with an allowed algorithm by the public key in its jwk header');
  }
  const { jti, htm, htu, iat } = verified.payload;
  if (typeof jti !== 'string' || jti === '' || jti.length > DPOP_JTI_MAX_LENGTH)
    throw badProof(`jti must be a string of 1 to ${DPOP_JTI_MAX_LENGTH} characters`);
  if (htm !== 'POST') throw badProof('htm must be POST');
  if (!sameEndpoint(htu, ctx.oidc.urlFor('token'))) throw badProof('htu must be the token endpoint');
  const now = Math.floor(Date.now() / 1000);
  if (typeof iat !== 'number' || Math.abs(now - iat) > EXCHANGE_DPOP_IAT_WINDOW_SECONDS)
    throw badProof(`iat must be within ${EXCHANGE_DPOP_IAT_WINDOW_SECONDS} seconds of the server's clock`);
  const clientId = ctx.oidc.client?.clientId ?? '';
  // RFC 9449 §11.1: a proof is used once, on every replica.
  if (!(await ctx.oidc.provider.ReplayDetection.unique(clientId, jti, iat + EXCHANGE_DPOP_IAT_WINDOW_SECONDS)))
    throw badProof('this proof (its jti) was already used');
  return calculateJwkThumbprint(verified.protectedHeader.jwk as JWK);
}

/**
 * The key the delegated token is bound to: a DPoP-bound parent's own key, which the request must
 * prove; for a bearer parent, the proof's key if the request sent one (a client registered with
 * `dpop_bound_access_tokens` must); null: a bearer token.
 */
export async function exchangeBinding(ctx: KoaContextWithOIDC, parent: AccessToken): Promise<string | null> {
  const jkt = await proofKey(ctx);
  if (parent.jkt && !jkt) throw new errors.InvalidRequest('subject_token is DPoP-bound: send a DPoP proof signed by its key (RFC 9449)');
  if (parent.jkt && jkt !== parent.jkt)
    throw new errors.InvalidRequest('the DPoP proof is not signed by the key subject_token is bound to');
  if (!jkt && ctx.oidc.client?.dpopBoundAccessTokens)
    throw new errors.InvalidRequest('this client is registered with dpop_bound_access_tokens: send a DPoP proof');
  return jkt;
}
