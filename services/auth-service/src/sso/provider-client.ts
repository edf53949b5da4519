/**
 * The company's OpenID provider as openid-client sees it: discovery (OpenID Connect Discovery 1.0
 * §4) and every later request (keys, token) go through the same guarded client as Client ID
 * Metadata Documents (src/@svc/bounds guarded-fetch.ts): no loopback, private or other special-use address,
 * bounded in time and size, no redirects. SSO_PRIVATE_ISSUERS=allow lifts the address rule, and
 * allows plain http, for a provider inside svc's own network (and the tests' local provider).
 */
import * as oc from 'openid-client';
import { CimdFetchRefused, createCimdFetch } from '@svc/bounds/guarded-fetch.ts';
import { SSO_MAX_RESPONSE_BYTES, SsoError } from '@svc/sso';

export interface ProviderClientOptions {
  /** SSO_PRIVATE_ISSUERS=allow. */
  allowPrivate: boolean;
}

export type Discover = (issuer: string, clientId: string, secret: string) => Promise<oc.Configuration>;

export function providerClient(options: ProviderClientOptions): Discover {
  const fetch = createCimdFetch({
    maxBytes: SSO_MAX_RESPONSE_BYTES,
    anyStatus: true,
    ...(options.allowPrivate ? { refuse: () => false } : {}),
  }) as unknown as oc.CustomFetch;

  return async function discover(issuer, clientId, secret) {
    const url = new URL(issuer);
    const insecure = url.protocol === 'http:';
    if (url.protocol !== 'https:' && !(insecure && options.allowPrivate)) {
      throw new SsoError(400, `The issuer must be an https URL (${url.protocol} given).`);
    }
    try {
      const config = await oc.discovery(url, clientId, undefined, oc.ClientSecretBasic(secret), {
        [oc.customFetch]: fetch,
        ...(insecure ? { execute: [oc.allowInsecureRequests] } : {}),
      });
      config[oc.customFetch] = fetch;
      // The ID token's signature is checked against the provider's keys too (OpenID Connect Core
      // 3.1.3.7), not only trusted for arriving over the token endpoint's TLS.
      oc.enableNonRepudiationChecks(config);
      return config;
    } catch (err) {
      throw discoveryRefusal(issuer, err, options.allowPrivate);
    }
  };
}

/** Why discovery failed, in words an owner can act on; the library's detail goes to the log. */
function discoveryRefusal(issuer: string, err: unknown, allowPrivate: boolean): SsoError {
  const detail = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  const refused = err instanceof CimdFetchRefused ? err : err instanceof Error && err.cause instanceof CimdFetchRefused ? err.cause : null;
  if (refused?.reason === 'address' && allowPrivate) {
    return new SsoError(400, `The provider's discovery at ${issuer} was refused: its host does not resolve.`, detail);
  }
  // A name that does not resolve reads as one at a private address: the owner cannot learn which
  // internal names exist (@svc/bounds outbound-guards.ts RefusalReason).
  if (refused?.reason === 'address') {
    return new SsoError(
      400,
      `The provider's discovery at ${issuer} was refused: its host does not resolve to a public address. An operator can allow providers at loopback or private addresses with SSO_PRIVATE_ISSUERS=allow.`,
      detail,
    );
  }
  if (refused) return new SsoError(502, `The provider's discovery at ${issuer} was refused: ${refused.message}.`, detail);
  return new SsoError(502, `The provider's discovery document at ${issuer} could not be read or does not name this issuer.`, detail);
}
