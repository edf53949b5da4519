/**
 * Verifies `svc_at_` bearer tokens against the auth-service's oidc-provider records in the shared
 * Redis, read through their one codec (`oidcRecords` of @svc/accounts; layout: docs/redis-schema.md,
 * "auth-service (oidc-provider)"). A token is accepted only
 * when its record is an unexpired, unconsumed AccessToken whose Grant still exists, that is not
 * bound to a client certificate (mTLS is not offered; a DPoP binding is returned as `jkt` and
 * checked per request by auth/dpop-binding.ts), not bound to an ended browser
 * session, and whose audience is one MCP resource `{baseUrl}/mcp/<slug>` (docs/contract.md
 * "Remote MCP OAuth" 3; RFC 8707). The level the person approved on the consent page is read from
 * the Grant (its scope for that resource), whatever scope the client asked for
 * (docs/auth-service.md "Scopes"). A service account's client-credentials token (kind
 * ClientCredentials, stored beside the AccessTokens) names the account and its audience, a
 * project's MCP endpoint or the team endpoint (docs/auth-service.md "Client credentials"). A
 * delegated token (RFC 8693 token exchange, docs/auth-service.md "Delegation (token exchange)")
 * carries its chain of acting clients, which the caller exposes, and stands only while each token
 * it descends from, up to DELEGATION_MAX_DEPTH of them, is itself live for the same person and
 * resource. The gateway caches answers and drops them on every `svc:invalidate` message, which the
 * auth-service's adapter publishes on each revocation, destruction or consumption.
 */
import type { AccessTokenRecord, Redis } from '@svc/accounts';
import { DELEGATION_MAX_DEPTH, oidcRecords, oidcSessionUidKey, SLUG_PATTERN } from '@svc/accounts';
import { parseCredential } from '@svc/credentials';
import { approvedLevel } from '@svc/policy';
import type { DelegationAncestor, OAuthTokenInfo, OAuthTokenVerifier, ServiceAccountTokenInfo } from './oauth-types.ts';

export function createOAuthTokenVerifier(deps: { redis: Redis; baseUrl: string; now?: () => number }): OAuthTokenVerifier {
  const now = deps.now ?? Date.now;
  const prefix = `${deps.baseUrl}/mcp/`;

  function projectOf(aud: AccessTokenRecord['aud']): string | null {
    if (typeof aud !== 'string' || !aud.startsWith(prefix)) return null;
    const slug = aud.slice(prefix.length);
    return SLUG_PATTERN.test(slug) ? slug : null;
  }

  /** A service account's token is for a project's MCP endpoint or its workspace's team endpoint. */
  function audienceOf(aud: AccessTokenRecord['aud']): ServiceAccountTokenInfo['audience'] | null {
    const project = projectOf(aud);
    if (project) return { kind: 'project', slug: project };
    if (typeof aud !== 'string' || !aud.startsWith(`${prefix}team/`)) return null;
    const slug = aud.slice(`${prefix}team/`.length);
    return SLUG_PATTERN.test(slug) ? { kind: 'team', slug } : null;
  }

  /**
   * The tokens a delegated token descends from, parent first, each live (unexpired, unconsumed,
   * its Grant there), for the same person and resource, and held by the actors the chain names
   * (the n-th ancestor's own chain is the token's without its first n actors); null when one is
   * not, or when the line is longer than its chain says or than DELEGATION_MAX_DEPTH.
   */
  async function liveAncestors(at: AccessTokenRecord): Promise<DelegationAncestor[] | null> {
    const chain = at.chain ?? [at.clientId];
    const ancestors: DelegationAncestor[] = [];
    for (let digest = at.parent; digest !== undefined;) {
      if (ancestors.length >= DELEGATION_MAX_DEPTH) return null;
      const stored = await oidcRecords.accessTokenByDigest(deps.redis, digest);
      const parent = stored?.consumed === null ? stored.payload : null;
      if (!parent || parent.exp * 1000 <= now() || parent.accountId !== at.accountId || parent.aud !== at.aud) return null;
      const expected = chain.slice(ancestors.length + 1);
      const own = parent.chain ?? [parent.clientId];
      if (own.length !== expected.length || own.some((actor, i) => actor !== expected[i])) return null;
      if (!(await oidcRecords.grant(deps.redis, parent.grantId))) return null;
      ancestors.push({ digest, grantId: parent.grantId });
      digest = parent.parent;
    }
    return ancestors.length === chain.length - 1 ? ancestors : null;
  }

  return {
    async verify(token: string): Promise<OAuthTokenInfo | ServiceAccountTokenInfo | null> {
      if (parseCredential(token)?.kind !== 'access_token') return null;
      const stored = await oidcRecords.accessToken(deps.redis, token);
      if (!stored || stored.consumed !== null) return null;
      const at = stored.payload;
      if (at.exp * 1000 <= now()) return null;
      if (at['x5t#S256']) return null;
      if (at.kind === 'ClientCredentials') {
        const audience = audienceOf(at.aud);
        return audience ? { serviceAccount: at.clientId, audience, expiresAt: at.exp * 1000, jkt: at.jkt ?? null } : null;
      }
      const project = projectOf(at.aud);
      if (!project) return null;
      const grant = await oidcRecords.grant(deps.redis, at.grantId);
      if (!grant) return null;
      if (at.expiresWithSession && (!at.sessionUid || !(await deps.redis.exists(oidcSessionUidKey(at.sessionUid))))) return null;
      const ancestors = at.parent === undefined ? [] : await liveAncestors(at);
      if (!ancestors) return null;
      // The scope the Grant records for the token's resource. A Grant that records none was never
      // approved for it (docs/auth-service.md "What a token is for"): the token is refused.
      const granted = typeof at.aud === 'string' ? grant.resources[at.aud] : undefined;
      if (granted === undefined) return null;
      return {
        userId: at.accountId,
        clientId: at.clientId,
        project,
        grantId: at.grantId,
        expiresAt: at.exp * 1000,
        scope: at.scope ?? '',
        approvedLevel: approvedLevel(granted),
        jkt: at.jkt ?? null,
        ...(at.chain ? { chain: at.chain, ancestors } : {}),
      };
    },
  };
}
