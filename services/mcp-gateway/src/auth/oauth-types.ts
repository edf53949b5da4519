/**
 * The seam between the gateway and the auth-service's OAuth tokens. The auth-service owns the
 * token records (oidc-provider adapter in the shared Redis); the gateway only asks whether an
 * `svc_at_` value is a live access token and what it is bound to.
 */
import type { KeyLevel } from '@svc/policy';

export interface OAuthTokenInfo {
  /** Account id of the user the token acts for (`user_...`). */
  userId: string;
  /** OAuth client the token was issued to (svc-mcp, svc-companion, create-svc, or a registered one). */
  clientId: string;
  /** Project slug of the resource the token is bound to (`{base_url}/mcp/<slug>`). */
  project: string;
  /** Grant id: revoking the grant revokes the token. Used as the session id of the caller. */
  grantId: string;
  /** Unix ms. */
  expiresAt: number;
  /** The token's scopes, space-separated (docs/contract.md "OAuth scopes and refresh"). */
  scope: string;
  /**
   * The level the person approved on the consent page (the Grant's scope for the resource);
   * VIEWER when the Grant records none (docs/auth-service.md "Scopes").
   */
  approvedLevel: KeyLevel;
  /** The thumbprint of the DPoP key the token is bound to (RFC 9449 §6.1 `cnf.jkt`); null when unbound. */
  jkt: string | null;
  /**
   * A delegated token's acting clients (RFC 8693 §4.1 `act`; docs/auth-service.md "Delegation
   * (token exchange)"): the current actor (`clientId`) first, the client the person authorized last.
   */
  chain?: string[];
  /** A delegated token's ancestors, parent first, each found live when the token was verified. */
  ancestors?: DelegationAncestor[];
}

/** A token a delegated token descends from: revoking it (or its grant) ends the delegated one. */
export interface DelegationAncestor {
  /** The SHA-256 of its value, as the auth-service's invalidation messages name it. */
  digest: string;
  grantId: string;
}

/**
 * A service account's client-credentials token (docs/auth-service.md "Client credentials"): it
 * stands for the account, whose grants are read at each call as its key's are.
 */
export interface ServiceAccountTokenInfo {
  /** The service account's id (its OAuth client id). */
  serviceAccount: string;
  /** The resource the token was issued for: `{base_url}/mcp/<slug>` or `{base_url}/mcp/team/<slug>`. */
  audience: { kind: 'project' | 'team'; slug: string };
  /** Unix ms. */
  expiresAt: number;
  /** The DPoP key thumbprint the token is bound to (RFC 9449), or null for a bearer token. */
  jkt: string | null;
}

export interface OAuthTokenVerifier {
  /** The token's binding when it is a live, unrevoked access token; null otherwise. */
  verify(token: string): Promise<OAuthTokenInfo | ServiceAccountTokenInfo | null>;
}
