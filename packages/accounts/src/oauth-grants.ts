/**
 * The OAuth grants people have given to apps (MCP clients), read from the auth-service's
 * oidc-provider records in the shared Redis (docs/redis-schema.md "auth-service"). A grant names
 * the client, the person and the MCP resources (one per project) it reaches; revoking it deletes
 * its tokens and codes and tells every gateway, which refuses them within a second.
 */
import type { StoreContext } from './context.ts';
import { invalidate } from './context.ts';
import { INVALIDATES } from './keys.ts';
import { addToRecordSet } from './oidc-record-writes.ts';
import { oidcAccountGrantsKey, oidcGrantKeysKey, oidcRecordKey, oidcRecords } from './oidc-records.ts';

export interface OAuthGrant {
  id: string;
  clientId: string;
  /** The registered client's own name, or the client id for svc's first-party clients. */
  clientName: string;
  /** The project slugs the grant reaches, with the scope granted for each. */
  projects: { slug: string; scope: string }[];
  /** Unix ms. */
  createdAt: number;
  expiresAt: number | null;
}

/** The project a resource indicator names: `<base>/mcp/<slug>`. */
function projectOfResource(resource: string): string | null {
  try {
    const m = /^\/mcp\/([^/]+)$/.exec(new URL(resource).pathname);
    return m ? m[1]! : null;
  } catch {
    return null;
  }
}

export class OAuthGrantStore {
  private readonly ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.ctx = ctx;
  }

  /** Records that `grantId` is the person's; kept as long as their longest grant. */
  async index(accountId: string, grantId: string, expiresInSeconds: number): Promise<void> {
    await addToRecordSet(this.ctx.redis, oidcAccountGrantsKey(accountId), grantId, expiresInSeconds);
  }

  async get(grantId: string): Promise<(OAuthGrant & { accountId: string }) | null> {
    const g = await oidcRecords.grant(this.ctx.redis, grantId);
    if (!g?.accountId || !g.clientId) return null;
    const projects = Object.entries(g.resources).flatMap(([resource, scope]) => {
      const slug = projectOfResource(resource);
      return slug ? [{ slug, scope }] : [];
    });
    return {
      id: grantId,
      accountId: g.accountId,
      clientId: g.clientId,
      clientName: (await this.clientName(g.clientId)) ?? g.clientId,
      projects,
      createdAt: (g.iat ?? 0) * 1000,
      expiresAt: g.exp ? g.exp * 1000 : null,
    };
  }

  /** The person's live grants, newest first (ended ones are dropped from the index on the way). */
  async listForUser(userId: string): Promise<OAuthGrant[]> {
    const key = oidcAccountGrantsKey(userId);
    const out: OAuthGrant[] = [];
    for (const id of await this.ctx.redis.smembers(key)) {
      const grant = await this.get(id);
      if (!grant || grant.accountId !== userId) await this.ctx.redis.srem(key, id);
      else out.push(grant);
    }
    return out.sort((a, b) => b.createdAt - a.createdAt);
  }

  /** Ends a grant: its tokens and codes are deleted and every gateway drops them. */
  async revoke(grantId: string): Promise<void> {
    const set = oidcGrantKeysKey(grantId);
    // One DEL per key: on Redis Cluster they live in different slots.
    for (const key of await this.ctx.redis.smembers(set)) await this.ctx.redis.del(key);
    await this.ctx.redis.del(set);
    await this.ctx.redis.del(oidcRecordKey('Grant', grantId));
    await invalidate(this.ctx, INVALIDATES.oauthGrant(grantId));
  }

  /** Ends every grant of the person that reaches `project` (they left it); the number ended. */
  async revokeForProject(userId: string, project: string): Promise<number> {
    let n = 0;
    for (const grant of await this.listForUser(userId)) {
      if (!grant.projects.some((p) => p.slug === project)) continue;
      await this.revoke(grant.id);
      await this.ctx.redis.srem(oidcAccountGrantsKey(userId), grant.id);
      n++;
    }
    return n;
  }

  private async clientName(clientId: string): Promise<string | null> {
    const name = (await oidcRecords.client(this.ctx.redis, clientId))?.client_name;
    return name || null;
  }
}
