/**
 * A fetched Client ID Metadata Document, made into what oidc-provider reads (docs/auth-service.md
 * "Metadata choices"). Hosted clients publish the methods they can use as a list, OpenID Connect
 * RP Metadata Choices 1.0 §3 (`token_endpoint_auth_methods_supported`,
 * `token_endpoint_auth_signing_alg_values_supported`); the library reads only the single-valued
 * fields, and without one it would assume `client_secret_basic`, which a metadata document may
 * not use. svc chooses one value from each list, by its own preference, and hands the library a
 * document with the single field set and the lists removed.
 */

/** The plural fields of RP Metadata Choices that svc reads, by the single field they choose for. */
const CHOICES = {
  token_endpoint_auth_method: 'token_endpoint_auth_methods_supported',
  token_endpoint_auth_signing_alg: 'token_endpoint_auth_signing_alg_values_supported',
} as const;

/** svc's preference among client assertion algorithms (asymmetric only, RFC 7523 §3). */
const ASSERTION_ALGS = ['ES256', 'EdDSA', 'PS256', 'RS256'] as const;

/** Whether the document's keys are usable: inline, or at an https jwks_uri on a host svc may fetch from. */
function keysUsable(doc: Record<string, unknown>, hostAllowed: (host: string) => boolean): boolean {
  if (doc['jwks_uri'] === undefined) return typeof doc['jwks'] === 'object' && doc['jwks'] !== null;
  if (typeof doc['jwks_uri'] !== 'string') return false;
  const url = URL.parse(doc['jwks_uri']);
  return url !== null && url.protocol === 'https:' && hostAllowed(url.host.toLowerCase());
}

const listOf = (v: unknown): string[] | null => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : null);

/**
 * The method svc uses with a client: `private_key_jwt` when the client offers it and its keys are at
 * a jwks_uri svc may fetch (the stronger proof: the client signs every token request), else `none`
 * when offered (a public client with PKCE). Null: nothing offered that svc supports.
 */
export function chooseAuthMethod(doc: Record<string, unknown>, hostAllowed: (host: string) => boolean): string | null {
  const offered = listOf(doc[CHOICES.token_endpoint_auth_method]) ?? [doc['token_endpoint_auth_method'] ?? 'none'];
  if (offered.includes('private_key_jwt') && keysUsable(doc, hostAllowed)) return 'private_key_jwt';
  if (offered.includes('none')) return 'none';
  return null;
}

/**
 * The document as oidc-provider is to read it. A document without the plural field keeps its own
 * method, except that `private_key_jwt` with keys svc may not fetch is left for the library to
 * refuse (it names the missing keys). Other fields pass unchanged: the library checks them.
 */
export function normaliseMetadataDocument(doc: Record<string, unknown>, hostAllowed: (host: string) => boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { ...doc };
  for (const plural of Object.values(CHOICES)) delete out[plural];
  // Keys on a host outside CIMD_ALLOWED_HOSTS are never fetched (docs/auth-service.md "Metadata choices").
  if (out['jwks_uri'] !== undefined && !keysUsable(doc, hostAllowed)) delete out['jwks_uri'];
  const method = chooseAuthMethod(doc, hostAllowed);
  if (method === null) {
    // Nothing svc supports: the library refuses the single method, or a missing one (shared secret).
    const first = listOf(doc[CHOICES.token_endpoint_auth_method])?.[0];
    if (first !== undefined) out['token_endpoint_auth_method'] = first;
    return out;
  }
  out['token_endpoint_auth_method'] = method;
  if (method === 'none') {
    // A public client signs nothing at the token endpoint, so it has no assertion algorithm to use.
    delete out['token_endpoint_auth_signing_alg'];
    return out;
  }
  const algs = listOf(doc[CHOICES.token_endpoint_auth_signing_alg]);
  if (algs) {
    const alg = ASSERTION_ALGS.find((a) => algs.includes(a));
    if (alg) out['token_endpoint_auth_signing_alg'] = alg;
    else delete out['token_endpoint_auth_signing_alg'];
  }
  return out;
}
