/**
 * Verifies `svc_at_` bearer tokens against the auth-service's oidc-provider records in the shared
 * Redis (layout: docs/redis-schema.md, "auth-service (oidc-provider)"). A token is accepted only
 * when its record is an unexpired, unconsumed AccessToken whose Grant still exists, that is not
 * sender-constrained (DPoP / mTLS proofs are not checked here), not bound to an ended browser
 * session, and whose audience is one MCP resource `{baseUrl}/mcp/<slug>` (docs/contract.md
 * "Remote MCP OAuth" 3; RFC 8707). The level the person approved on the consent page is read from
 * the Grant (its scope for that resource), whatever scope the client asked for
 * (docs/auth-service.md "Scopes"). The gateway caches answers and drops them on every `svc:invalidate` message, which the
 * auth-service's adapter publishes on each revocation, destruction or consumption.
 */
import type { Redis } from '@svc/accounts';
import { oidcRecordKey, oidcSessionUidKey, SLUG_PATTERN } from '@svc/accounts';
import { parseCredential } from '@svc/credentials';
import { approvedLevel } from '@svc/policy';
import type { OAuthTokenInfo, OAuthTokenVerifier } from './oauth-types.ts';

interface StoredAccessToken {
  kind?: string;
  exp?: number;
  accountId?: string;
  clientId?: string;
  grantId?: string;
  aud?: string | string[];
  scope?: string;
  expiresWithSession?: boolean;
  sessionUid?: string;
  jkt?: string;
  'x5t#S256'?: string;
}

/** The scope a stored Grant records for `resource`; null when unreadable or absent (read as VIEWER). */
function grantScopeOf(payload: string, resource: string | string[] | undefined): string | null {
  try {
    const resources = (JSON.parse(payload) as { resources?: Record<string, unknown> }).resources;
    const scope = typeof resource === 'string' ? resources?.[resource] : undefined;
    return typeof scope === 'string' ? scope : null;
  } catch {
    return null;
  }
}

export function createOAuthTokenVerifier(deps: { redis: Redis; baseUrl: string; now?: () => number }): OAuthTokenVerifier {
  const now = deps.now ?? Date.now;
  const prefix = `${deps.baseUrl}/mcp/`;

  function projectOf(aud: StoredAccessToken['aud']): string | null {
    if (typeof aud !== 'string' || !aud.startsWith(prefix)) return null;
    const slug = aud.slice(prefix.length);
    return SLUG_PATTERN.test(slug) ? slug : null;
  }

  return {
    async verify(token: string): Promise<OAuthTokenInfo | null> {
      if (parseCredential(token)?.kind !== 'access_token') return null;
      const h = await deps.redis.hgetall(oidcRecordKey('AccessToken', token));
      if (!h['payload'] || h['consumed']) return null;
      let at: StoredAccessToken;
      try {
        at = JSON.parse(h['payload']) as StoredAccessToken;
      } catch {
        return null;
      }
      if (at.kind !== 'AccessToken' || !at.accountId || !at.clientId || !at.grantId) return null;
      if (typeof at.exp !== 'number' || at.exp * 1000 <= now()) return null;
      if (at.jkt || at['x5t#S256']) return null;
      const project = projectOf(at.aud);
      if (!project) return null;
      const grant = await deps.redis.hget(oidcRecordKey('Grant', at.grantId), 'payload');
      if (!grant) return null;
      if (at.expiresWithSession && (!at.sessionUid || !(await deps.redis.exists(oidcSessionUidKey(at.sessionUid))))) return null;
      return {
        userId: at.accountId,
        clientId: at.clientId,
        project,
        grantId: at.grantId,
        expiresAt: at.exp * 1000,
        scope: typeof at.scope === 'string' ? at.scope : '',
        approvedLevel: approvedLevel(grantScopeOf(grant, at.aud)),
      };
    },
  };
}
