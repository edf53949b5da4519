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
 * project's MCP endpoint or the team endpoint (docs/auth-service.md "Client credentials"). The gateway caches answers and drops them on every `svc:invalidate` message, which the
 * auth-service's adapter publishes on each revocation, destruction or consumption.
 */
import type { AccessTokenRecord, Redis } from '@svc/accounts';
import { oidcRecords, oidcSessionUidKey, SLUG_PATTERN } from '@svc/accounts';
import { parseCredential } from '@svc/credentials';
import { approvedLevel } from '@svc/policy';
import type { OAuthTokenInfo, OAuthTokenVerifier, ServiceAccountTokenInfo } from './oauth-types.ts';

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
      // The scope the Grant records for the token's resource; absent is read as VIEWER.
      const granted = typeof at.aud === 'string' ? grant.resources[at.aud] : undefined;
      return {
        userId: at.accountId,
        clientId: at.clientId,
        project,
        grantId: at.grantId,
        expiresAt: at.exp * 1000,
        scope: at.scope ?? '',
        approvedLevel: approvedLevel(granted),
        jkt: at.jkt ?? null,
      };
    },
  };
}
